/* pgsql_msgs.h - PostgreSQL protocol 3.0/3.2 message types, one table per
 * direction (PostgreSQL 18 docs, "Message Formats").
 *
 * X(type byte, ID, name, max length word, exact length word or 0)
 *
 * Frontend limits are the server's own (src/backend/tcop/postgres.c
 * SocketBackend): PQ_SMALL_MESSAGE_LIMIT for control messages,
 * PQ_LARGE_MESSAGE_LIMIT for the rest.  Backend limits follow libpq
 * (fe-protocol3.c): over 30000 bytes only for T D d V E N A.
 */
#ifndef PGRTT_PGSQL_MSGS_H
#define PGRTT_PGSQL_MSGS_H

#define PGSQL_SMALL_LIMIT 10000u      /* PQ_SMALL_MESSAGE_LIMIT */
#define PGSQL_LARGE_LIMIT 1073741822u /* PQ_LARGE_MESSAGE_LIMIT = MaxAllocSize - 1 */
#define PGSQL_BE_SHORT_LIMIT 30000u   /* libpq: longer only for VALID_LONG_MESSAGE_TYPE */
#define PGSQL_BE_LONG_LIMIT 0x7fffffffu

#define PGSQL_FE_MSGS(X)                                                  \
	X('B', BIND, "Bind", PGSQL_LARGE_LIMIT, 0)                        \
	X('C', CLOSE, "Close", PGSQL_SMALL_LIMIT, 0)                      \
	X('d', COPY_DATA, "CopyData", PGSQL_LARGE_LIMIT, 0)               \
	X('c', COPY_DONE, "CopyDone", PGSQL_SMALL_LIMIT, 4)               \
	X('f', COPY_FAIL, "CopyFail", PGSQL_SMALL_LIMIT, 0)               \
	X('D', DESCRIBE, "Describe", PGSQL_SMALL_LIMIT, 0)                \
	X('E', EXECUTE, "Execute", PGSQL_SMALL_LIMIT, 0)                  \
	X('H', FLUSH, "Flush", PGSQL_SMALL_LIMIT, 4)                      \
	X('F', FUNCTION_CALL, "FunctionCall", PGSQL_LARGE_LIMIT, 0)       \
	X('p', PASSWORD, "PasswordMessage", PGSQL_LARGE_LIMIT, 0)         \
	X('P', PARSE, "Parse", PGSQL_LARGE_LIMIT, 0)                      \
	X('Q', QUERY, "Query", PGSQL_LARGE_LIMIT, 0)                      \
	X('S', SYNC, "Sync", PGSQL_SMALL_LIMIT, 4)                        \
	X('X', TERMINATE, "Terminate", PGSQL_SMALL_LIMIT, 4)

#define PGSQL_BE_MSGS(X)                                                  \
	X('R', AUTH, "Authentication", PGSQL_BE_SHORT_LIMIT, 0)           \
	X('K', BACKEND_KEY, "BackendKeyData", 4 + 4 + 256, 0)             \
	X('2', BIND_COMPLETE, "BindComplete", 4, 4)                       \
	X('3', CLOSE_COMPLETE, "CloseComplete", 4, 4)                     \
	X('C', COMMAND_COMPLETE, "CommandComplete", PGSQL_BE_SHORT_LIMIT, 0) \
	X('d', COPY_DATA, "CopyData", PGSQL_BE_LONG_LIMIT, 0)             \
	X('c', COPY_DONE, "CopyDone", 4, 4)                               \
	X('G', COPY_IN, "CopyInResponse", PGSQL_BE_SHORT_LIMIT, 0)        \
	X('H', COPY_OUT, "CopyOutResponse", PGSQL_BE_SHORT_LIMIT, 0)      \
	X('W', COPY_BOTH, "CopyBothResponse", PGSQL_BE_SHORT_LIMIT, 0)    \
	X('D', DATA_ROW, "DataRow", PGSQL_BE_LONG_LIMIT, 0)               \
	X('I', EMPTY_QUERY, "EmptyQueryResponse", 4, 4)                   \
	X('E', ERROR, "ErrorResponse", PGSQL_BE_LONG_LIMIT, 0)            \
	X('V', FUNCTION_RESULT, "FunctionCallResponse", PGSQL_BE_LONG_LIMIT, 0) \
	X('v', NEGOTIATE, "NegotiateProtocolVersion", PGSQL_BE_SHORT_LIMIT, 0) \
	X('n', NO_DATA, "NoData", 4, 4)                                   \
	X('N', NOTICE, "NoticeResponse", PGSQL_BE_LONG_LIMIT, 0)          \
	X('A', NOTIFICATION, "NotificationResponse", PGSQL_BE_LONG_LIMIT, 0) \
	X('t', PARAM_DESC, "ParameterDescription", PGSQL_BE_SHORT_LIMIT, 0) \
	X('S', PARAM_STATUS, "ParameterStatus", PGSQL_BE_SHORT_LIMIT, 0)  \
	X('1', PARSE_COMPLETE, "ParseComplete", 4, 4)                     \
	X('s', PORTAL_SUSPENDED, "PortalSuspended", 4, 4)                 \
	X('Z', READY, "ReadyForQuery", 5, 5)                              \
	X('T', ROW_DESC, "RowDescription", PGSQL_BE_LONG_LIMIT, 0)

enum pgsql_fe_type {
#define X(ch, id, name, max, exact) PGSQL_FE_##id = ch,
	PGSQL_FE_MSGS(X)
#undef X
};

enum pgsql_be_type {
#define X(ch, id, name, max, exact) PGSQL_BE_##id = ch,
	PGSQL_BE_MSGS(X)
#undef X
};

/* Untyped startup-phase messages and the one-byte answers to encryption
 * requests get pseudo types outside the printable range. */
enum pgsql_pseudo_type {
	PGSQL_STARTUP = 0x01,     /* StartupMessage */
	PGSQL_SSL_REQUEST = 0x02, /* SSLRequest */
	PGSQL_GSS_REQUEST = 0x03, /* GSSENCRequest */
	PGSQL_CANCEL = 0x04,      /* CancelRequest */
	PGSQL_ENC_ANSWER = 0x05,  /* one byte 'S', 'N' or 'G' answering SSL/GSS */
};

#define PGSQL_PROTO_3_0 196608u      /* 3 << 16 | 0 */
#define PGSQL_PROTO_3_2 196610u      /* 3 << 16 | 2 (PostgreSQL 18) */
#define PGSQL_CANCEL_CODE 80877102u  /* 1234 << 16 | 5678 */
#define PGSQL_SSL_CODE 80877103u     /* 1234 << 16 | 5679 */
#define PGSQL_GSSENC_CODE 80877104u  /* 1234 << 16 | 5680 */
#define PGSQL_MAX_STARTUP 10000u     /* MAX_STARTUP_PACKET_LENGTH (body) */
#define PGSQL_MAX_CANCEL_KEY 256u    /* protocol 3.2 secret key */

#endif
