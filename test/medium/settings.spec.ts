/**
 * A firm's settings and their trail: API keys and the receptionist (each moves the clock its later tests read), the
 * audit log (its own database) and the README's admin CLI table. Each case keeps its own context.
 */
import './settings/api-keys.cases';
import './settings/receptionist.cases';
import './settings/audit.cases';
import './settings/readme-cli.cases';
import './settings/idempotency.cases';
