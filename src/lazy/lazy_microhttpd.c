/* lazy_microhttpd.c - libmicrohttpd, loaded on its first call (lazy.h):
 * capture --metrics. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "lazy_stub.h"

#ifndef PGRTT_MICROHTTPD_SONAME
#define PGRTT_MICROHTTPD_SONAME "libmicrohttpd.so.12"
#endif

#define MHD_FUNCS(X, V, N)                                                                \
	X(enum MHD_Result, MHD_add_response_header,                                       \
	  (struct MHD_Response * r, const char *header, const char *content),             \
	  (r, header, content))                                                           \
	X(struct MHD_Response *, MHD_create_response_from_buffer,                         \
	  (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode)) \
	V(MHD_destroy_response, (struct MHD_Response * r), (r))                           \
	X(enum MHD_Result, MHD_queue_response,                                            \
	  (struct MHD_Connection * c, unsigned int status, struct MHD_Response *r),       \
	  (c, status, r))                                                                 \
	X(enum MHD_Result, MHD_run, (struct MHD_Daemon * d), (d))                         \
	V(MHD_stop_daemon, (struct MHD_Daemon * d), (d))                                  \
	X(struct MHD_Daemon *, MHD_start_daemon_va,                                       \
	  (unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls, \
	   MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap),                        \
	  (flags, port, apc, apc_cls, dh, dh_cls, ap))                                    \
	N(MHD_get_daemon_info)

LAZY_LIBRARY(microhttpd, MHD_FUNCS, PGRTT_MICROHTTPD_SONAME, "libmicrohttpd12");
#define LAZY_THIS microhttpd
MHD_FUNCS(LAZY_DEFINE, LAZY_DEFINE_VOID, LAZY_NONE)

/* The options as libmicrohttpd's own MHD_start_daemon passes them on. */
struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
				    void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
	va_list ap;
	va_start(ap, dh_cls);
	struct MHD_Daemon *d = MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

/* The arguments after info_type are read by no info type libmicrohttpd
 * still answers (they were for MHD_DAEMON_INFO_KEY_SIZE and MAC_KEY_SIZE,
 * gone): none is passed on. */
const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *d,
						enum MHD_DaemonInfoType t, ...)
{
	return LAZY_FN(microhttpd, const union MHD_DaemonInfo *, MHD_get_daemon_info,
		       (struct MHD_Daemon *, enum MHD_DaemonInfoType, ...))(d, t);
}
