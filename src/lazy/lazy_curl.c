/* lazy_curl.c - libcurl, loaded on its first call (lazy.h): pgrtt bench's
 * page fetches. */
#define CURL_DISABLE_TYPECHECK /* the stubs define what the checks wrap */
#include <stdarg.h>
#include <curl/curl.h>

#include "lazy_stub.h"

#ifndef PGRTT_CURL_SONAME
#define PGRTT_CURL_SONAME "libcurl.so.4"
#endif

#define CURL_FUNCS(X, V, N)                                                               \
	X(CURLcode, curl_global_init, (long flags), (flags))                              \
	X(CURL *, curl_easy_init, (void), ())                                             \
	X(CURLcode, curl_easy_perform, (CURL * c), (c))                                   \
	V(curl_easy_cleanup, (CURL * c), (c))                                             \
	N(curl_easy_setopt)                                                               \
	N(curl_easy_getinfo)

LAZY_LIBRARY(curl, CURL_FUNCS, PGRTT_CURL_SONAME, "libcurl4");
#define LAZY_THIS curl
CURL_FUNCS(LAZY_DEFINE, LAZY_DEFINE_VOID, LAZY_NONE)

typedef CURLcode setopt_fn(CURL *, CURLoption, ...);

/* An option's value has the type its number's range says (curl.h's
 * CURLOPTTYPE_*): read as that type, passed on as that type. */
CURLcode curl_easy_setopt(CURL *c, CURLoption option, ...)
{
	setopt_fn *real = LAZY_FN(curl, CURLcode, curl_easy_setopt, (CURL *, CURLoption, ...));
	va_list ap;
	va_start(ap, option);
	CURLcode rc;
	if (option < CURLOPTTYPE_OBJECTPOINT) {
		long v = va_arg(ap, long);
		rc = real(c, option, v);
	} else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
		void *v = va_arg(ap, void *);
		rc = real(c, option, v);
	} else if (option < CURLOPTTYPE_OFF_T) {
		void (*v)(void) = va_arg(ap, void (*)(void));
		rc = real(c, option, v);
	} else if (option < CURLOPTTYPE_BLOB) {
		curl_off_t v = va_arg(ap, curl_off_t);
		rc = real(c, option, v);
	} else {
		void *v = va_arg(ap, void *);
		rc = real(c, option, v);
	}
	va_end(ap);
	return rc;
}

/* Every kind of information is answered through a pointer. */
CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
	va_list ap;
	va_start(ap, info);
	void *out = va_arg(ap, void *);
	va_end(ap);
	return LAZY_FN(curl, CURLcode, curl_easy_getinfo, (CURL *, CURLINFO, ...))(c, info, out);
}
