/**
 * What a public listing needs of a document beside its key (facets, order), kept on the rows of
 * search_box and search_range so that a box or a range is counted and paged from their index
 * entries alone, never from each match's row of search_doc.
 */
import { sql } from 'kysely';

const COLUMNS = ['kind', 'resource_type', 'resource_type_label', 'access_status', 'created', 'updated', 'version_index', 'id'] as const;

/** The key and the listing columns of a row (alias `r` if given). */
export const listingColumns = (r?: string) => sql.raw(['key', ...COLUMNS].map((c) => (r === undefined ? c : `${r}.${c}`)).join(', '));

/**
 * A document's listing columns from its rows, grouped by key alone (bytewise): grouping by every
 * column sorted the rows on all nine in the database's collation, a third of the statement.
 */
export const LISTING_AGGREGATES = sql.raw(COLUMNS.map((c) => `any_value(${c}) as ${c}`).join(', '));
