/* lazy.c - a library opened on its first call (see lazy.h). */
#include "lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const struct lazy_lib *lib, const char *what)
{
	fprintf(stderr, "pgrtt: %s: %s (Debian package %s)\n", lib->soname, what, lib->package);
	exit(2);
}

void lazy_load(struct lazy_lib *lib)
{
	pthread_mutex_lock(&lock);
	/* the last symbol is set last: once it is, every one is */
	if (lib->syms[lib->n - 1]) {
		pthread_mutex_unlock(&lock);
		return;
	}
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail(lib, dlerror());
	for (size_t i = 0; i < lib->n; i++) {
		void *f = dlsym(h, lib->names[i]);
		if (!f)
			fail(lib, dlerror());
		__atomic_store_n(&lib->syms[i], f, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
}
