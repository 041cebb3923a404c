import { columns, type Columns } from '../database/columns.js';
import { EventEntity } from './entities/event.entity.js';

/**
 * The events table's column names under `alias`, for a context whose statement joins the events it carries (the
 * dispatcher's claim): typed by the entity, so a renamed column fails the build there too. `txid` is not among them
 * (an `xid8` no entity describes).
 */
export const eventColumns = (alias: string): Columns<EventEntity> => columns(EventEntity, alias);
