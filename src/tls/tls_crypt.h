/* tls_crypt.h - a TLS record's plaintext from its direction's traffic
 * secret: RFC 8446's key schedule (7.1-7.3) and record protection (5.2),
 * every primitive OpenSSL's libcrypto (EVP AEAD, HKDF), loaded on first use
 * (src/lazy/lazy_crypto.c) - a run without a key log never loads it.
 *
 * TLS 1.3's suites: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384,
 * TLS_CHACHA20_POLY1305_SHA256.  A direction's keys come from a traffic
 * secret of the key log (keylog.h); each record opened advances its
 * sequence number, and a KeyUpdate moves the secret on.  Nothing here
 * prints or keeps a secret past tls_keys_clear.
 */
#ifndef PGRTT_TLS_CRYPT_H
#define PGRTT_TLS_CRYPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLS_SECRET_MAX 48 /* SHA-384's */
#define TLS_TAG 16        /* every suite's AEAD tag */
#define TLS_RECORD_MAX (16384 + 256) /* a TLS 1.3 ciphertext: 2^14 + 256 */

struct tls_suite {
	uint16_t id;        /* 0x1301 ... */
	const char *name;   /* "TLS_AES_256_GCM_SHA384" */
	uint8_t key_len;    /* 16 or 32 */
	uint8_t hash_len;   /* 32 or 48 */
	uint8_t aead;       /* tls_crypt.c's cipher */
};

/* The TLS 1.3 suite numbered id (ServerHello's), or NULL: not one this reads. */
const struct tls_suite *tls13_suite(uint16_t id);

/* One direction's record protection. */
struct tls_keys {
	const struct tls_suite *suite;
	uint8_t secret[TLS_SECRET_MAX]; /* the traffic secret they come from */
	uint8_t key[32], iv[12];
	uint64_t seq; /* the next record's */
};

/* k's key and iv from a traffic secret of suite's hash length, its
 * sequence number 0.  0, or -1 (a secret of another length, libcrypto
 * failing). */
int tls13_keys(struct tls_keys *k, const struct tls_suite *suite, const uint8_t *secret,
	       size_t len);

/* A KeyUpdate: the next traffic secret of the direction, its keys, 0. */
int tls13_update(struct tls_keys *k);

/* The record hdr[0..5) + body[0..n): opened into out (room for n bytes;
 * out may be body itself), its padding stripped.  Returns the plaintext's length, its content type
 * in *type; -1 when it does not authenticate (a wrong key, damage), the
 * sequence number then left as it was, or carries no content type. */
int tls13_open(struct tls_keys *k, const uint8_t hdr[5], const uint8_t *body, size_t n,
	       uint8_t *out, uint8_t *type);

/* Forget the secret and keys. */
void tls_keys_clear(struct tls_keys *k);

#endif
