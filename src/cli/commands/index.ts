import type { CliCommand } from '../command.js';
import { callCommands } from './call.commands.js';
import { consoleCommands } from './console.commands.js';
import { endpointCommands } from './endpoint.commands.js';
import { keyCommands } from './key.commands.js';
import { miscCommands } from './misc.commands.js';
import { orgCommands } from './org.commands.js';
import { receptionistCommands } from './receptionist.commands.js';
import { recordingCommands } from './recording.commands.js';

/** Every dashboard action the CLI offers. Add a context's commands here. */
export const COMMANDS: CliCommand[] = [
  ...orgCommands,
  ...keyCommands,
  ...receptionistCommands,
  ...callCommands,
  ...recordingCommands,
  ...endpointCommands,
  ...consoleCommands,
  ...miscCommands,
];
