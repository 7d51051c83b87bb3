/* fuzz_resp.c - the RESP framer on arbitrary streams.
 *
 * Input format (tests/fuzz/corpus/resp/, made from captures of redis-server
 * by tests/fuzz/mkcorpus.py, as for fuzz_pgsql): one byte, bit 0 set when
 * the connection is seen from its start; then records of a header byte
 * (bit 0: the server's side; bit 1: a capture gap of LEN bytes instead of
 * data), a 2-byte big-endian LEN and, for data, LEN bytes of that side's
 * stream.  Each message must be whole: a known type, its name and arguments
 * terminated within their bounds, a size.  The values then feed the Redis
 * round-trip engine (redis_rtt.c), whose counts must stay consistent: no
 * reply count below zero, the classes summing to the round trips. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "redis_rtt.h"
#include "resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(void *ctx, const struct resp_msg *m) {
  struct redis_rtt *r = ctx;
  if (memchr(m->name, '\0', sizeof m->name) == NULL ||
      memchr(m->arg[0], '\0', sizeof m->arg[0]) == NULL ||
      memchr(m->arg[1], '\0', sizeof m->arg[1]) == NULL)
    __builtin_trap();
  if (m->bytes == 0 || (m->type != RESP_INLINE && !resp_type_valid(m->type)))
    __builtin_trap();
  if (m->side == RESP_CLIENT && m->type != '*' && m->type != RESP_INLINE)
    __builtin_trap(); /* a client sends arrays or lines */
  redis_rtt_msg(r, m);
  if (r->awaited > (1ull << 40) || r->confirms > r->awaited)
    __builtin_trap();
}

static void check_counts(const struct redis_rtt *r) {
  uint64_t sum = 0;
  for (int c = 0; c < RT_NCLASS; c++)
    sum += r->st.by_class[c];
  if (sum != r->st.round_trips || r->st.pipelined > r->st.round_trips ||
      (r->st.replies == 0 && r->st.round_trips > 0))
    __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  struct resp_conn c;
  struct redis_rtt r;
  struct hist lat;
  hist_init(&lat);
  redis_rtt_init(&r, &lat, NULL, NULL, NULL);
  resp_conn_init(&c, data[0] & 1);
  size_t off = 1;
  uint64_t ts = 0;
  while (off + 3 <= size) {
    uint8_t hdr = data[off];
    size_t n = (size_t)data[off + 1] << 8 | data[off + 2];
    enum resp_side side = hdr & 1 ? RESP_SERVER : RESP_CLIENT;
    off += 3;
    if (hdr & 2) {
      redis_rtt_gap(&r, side);
      resp_gap(&c, side, n);
      continue;
    }
    if (n > size - off)
      n = size - off;
    resp_feed(&c, side, data + off, n, ts++, on_msg, &r);
    off += n;
  }
  redis_rtt_finish(&r);
  check_counts(&r);
  return 0;
}
