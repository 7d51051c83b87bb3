/* lazy_libpq.c - libpq, loaded on its first call (lazy.h): the store on
 * PostgreSQL and pgrtt bench's dataset. */
#include <libpq-fe.h>

#include "lazy_stub.h"

#ifndef PGRTT_LIBPQ_SONAME
#define PGRTT_LIBPQ_SONAME "libpq.so.5"
#endif

#define PQ_FUNCS(X, V, N)                                                                    \
	V(PQclear, (PGresult * res), (res))                                               \
	X(PGconn *, PQconnectdb, (const char *conninfo), (conninfo))                      \
	X(PGconn *, PQconnectdbParams,                                                    \
	  (const char *const *keywords, const char *const *values, int expand_dbname),    \
	  (keywords, values, expand_dbname))                                              \
	V(PQconninfoFree, (PQconninfoOption * o), (o))                                    \
	X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg),     \
	  (conninfo, errmsg))                                                             \
	X(int, PQconsumeInput, (PGconn * conn), (conn))                                   \
	X(char *, PQerrorMessage, (const PGconn *conn), (conn))                           \
	X(PGresult *, PQexec, (PGconn * conn, const char *query), (conn, query))          \
	X(PGresult *, PQexecParams,                                                       \
	  (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,        \
	   const char *const *paramValues, const int *paramLengths,                      \
	   const int *paramFormats, int resultFormat),                                    \
	  (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,   \
	   resultFormat))                                                                 \
	V(PQfinish, (PGconn * conn), (conn))                                              \
	X(int, PQflush, (PGconn * conn), (conn))                                          \
	X(char *, PQfname, (const PGresult *res, int field_num), (res, field_num))        \
	X(Oid, PQftype, (const PGresult *res, int field_num), (res, field_num))           \
	X(PGresult *, PQgetResult, (PGconn * conn), (conn))                               \
	X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num),            \
	  (res, tup_num, field_num))                                                      \
	X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num),          \
	  (res, tup_num, field_num))                                                      \
	X(char *, PQhost, (const PGconn *conn), (conn))                                   \
	X(int, PQisBusy, (PGconn * conn), (conn))                                         \
	X(int, PQnfields, (const PGresult *res), (res))                                   \
	X(int, PQntuples, (const PGresult *res), (res))                                   \
	X(char *, PQpass, (const PGconn *conn), (conn))                                   \
	X(char *, PQport, (const PGconn *conn), (conn))                                   \
	X(int, PQputCopyData, (PGconn * conn, const char *buffer, int nbytes),            \
	  (conn, buffer, nbytes))                                                         \
	X(int, PQputCopyEnd, (PGconn * conn, const char *errormsg), (conn, errormsg))     \
	X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
	X(char *, PQresultErrorMessage, (const PGresult *res), (res))                     \
	X(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                   \
	X(int, PQsendQuery, (PGconn * conn, const char *query), (conn, query))            \
	X(int, PQsendQueryParams,                                                         \
	  (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,        \
	   const char *const *paramValues, const int *paramLengths,                      \
	   const int *paramFormats, int resultFormat),                                    \
	  (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,   \
	   resultFormat))                                                                 \
	X(PQnoticeProcessor, PQsetNoticeProcessor,                                        \
	  (PGconn * conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))          \
	X(int, PQsocket, (const PGconn *conn), (conn))                                    \
	X(ConnStatusType, PQstatus, (const PGconn *conn), (conn))                         \
	X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))     \
	X(char *, PQuser, (const PGconn *conn), (conn))

LAZY_LIBRARY(libpq, PQ_FUNCS, PGRTT_LIBPQ_SONAME, "libpq5");

#define LAZY_THIS libpq
PQ_FUNCS(LAZY_DEFINE, LAZY_DEFINE_VOID, LAZY_NONE)
