/* store_impl.h - shared by store.c and store_read.c only: the database
 * handle.  Commands read records through store.h, never SQL. */
#ifndef PGRTT_STORE_IMPL_H
#define PGRTT_STORE_IMPL_H

#include "db.h"

#include "store.h"

struct db *store_db(struct store *s); /* SQLite or PostgreSQL: db.h */

#endif
