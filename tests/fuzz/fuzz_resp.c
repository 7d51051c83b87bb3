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
 * reply count below zero, the classes summing to the round trips.  The
 * same pieces also go to a connection read by the incremental machine
 * alone (resp_conn.slow): its messages and counters must be the same as
 * those the whole-value path gave. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/redis/redis_rtt.h"
#include "resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what both readings emitted: a running digest, and how many */
struct digest {
  uint64_t h, n;
};

static void mix(struct digest *d, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++)
    d->h = (d->h ^ b[i]) * 0x100000001b3ull;
}

static void digest_msg(struct digest *d, const struct resp_msg *m) {
  uint8_t flags[] = {m->side, m->type, m->push, m->error, m->null, m->attr, m->gap, m->name_cut};
  mix(d, flags, sizeof flags);
  mix(d, &m->argc, sizeof m->argc);
  mix(d, &m->bytes, sizeof m->bytes);
  mix(d, &m->ts_first, sizeof m->ts_first);
  mix(d, &m->ts_last, sizeof m->ts_last);
  mix(d, m->name, strlen(m->name) + 1);
  mix(d, m->arg[0], strlen(m->arg[0]) + 1);
  mix(d, m->arg[1], strlen(m->arg[1]) + 1);
  d->n++;
}

struct fast_ctx {
  struct redis_rtt *r;
  struct digest d;
};

static void on_slow(void *ctx, const struct resp_msg *m) { digest_msg(ctx, m); }

static void on_msg(void *ctx, const struct resp_msg *m) {
  struct fast_ctx *f = ctx;
  struct redis_rtt *r = f->r;
  digest_msg(&f->d, m);
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
  struct resp_conn c, slow;
  struct redis_rtt r;
  struct fast_ctx f = {&r, {0xcbf29ce484222325ull, 0}};
  struct digest ds = {0xcbf29ce484222325ull, 0};
  struct hist lat;
  hist_init(&lat);
  redis_rtt_init(&r, &lat, NULL, NULL, NULL);
  resp_conn_init(&c, data[0] & 1);
  resp_conn_init(&slow, data[0] & 1);
  slow.slow = true;
  size_t off = 1;
  uint64_t ts = 0;
  while (off + 3 <= size) {
    uint8_t hdr = data[off];
    size_t n = (size_t)data[off + 1] << 8 | data[off + 2];
    enum resp_side side = hdr & 1 ? RESP_SERVER : RESP_CLIENT;
    off += 3;
    if (hdr & 2) {
      redis_rtt_gap(&r, side);
      resp_gap(&c, side, n, on_msg, &f);
      resp_gap(&slow, side, n, on_slow, &ds);
      continue;
    }
    if (n > size - off)
      n = size - off;
    resp_feed(&c, side, data + off, n, ts, on_msg, &f);
    resp_feed(&slow, side, data + off, n, ts++, on_slow, &ds);
    off += n;
  }
  if (f.d.h != ds.h || f.d.n != ds.n)
    __builtin_trap(); /* the whole-value path read something else */
  for (int k = 0; k < 2; k++) {
    const struct resp_dir *a = &c.dir[k], *b = &slow.dir[k];
    if (a->msgs != b->msgs || a->malformed != b->malformed || a->resyncs != b->resyncs ||
        a->skipped_bytes != b->skipped_bytes || a->state != b->state)
      __builtin_trap();
  }
  redis_rtt_finish(&r);
  check_counts(&r);
  return 0;
}
