/* lazy.h - the heavy libraries, loaded the first time one of their
 * functions is called.
 *
 * libpq, libcurl and libmicrohttpd each pull in a TLS library, Kerberos,
 * LDAP or SSH at load: together some 6 MiB of resident pages and a few
 * milliseconds of constructors in every run, while most runs (analyze,
 * dump, trace; a capture without --db or --metrics) call none of them;
 * libcrypto, for TLS records opened with a key log, likewise.
 * pgrtt links this folder's stubs instead: each defines the library's
 * functions that pgrtt calls, with the library's own prototypes (its
 * header is included, so a mismatch does not compile), and forwards to
 * the real one, opened with dlopen on the first call.  The callers are
 * unchanged: they include the library's header and call it as usual.
 */
#ifndef PGRTT_LAZY_H
#define PGRTT_LAZY_H

#include <stddef.h>

struct lazy_lib {
	const char *soname;  /* "libpq.so.5" */
	const char *package; /* Debian's, named when it cannot be loaded */
	const char *const *names; /* the functions, in the order of syms */
	size_t n;
	void **syms;
};

/* Opens lib and resolves every name once (thread-safe: each stub calls
 * it).  A library or a function that cannot be found ends the process
 * with one line naming it and the package, exit 2: nothing has been
 * written by then that it could leave half done (the first call to the
 * library is its connect, init or daemon start). */
void lazy_load(struct lazy_lib *lib);

#endif
