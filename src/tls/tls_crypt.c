/* tls_crypt.c - TLS 1.3's key schedule and record protection through
 * libcrypto (tls_crypt.h). */
#include "tls_crypt.h"

#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <string.h>

enum { AEAD_AES_128_GCM, AEAD_AES_256_GCM, AEAD_CHACHA20_POLY1305 };

static const struct tls_suite suites[] = {
	{0x1301, "TLS_AES_128_GCM_SHA256", 16, 32, AEAD_AES_128_GCM},
	{0x1302, "TLS_AES_256_GCM_SHA384", 32, 48, AEAD_AES_256_GCM},
	{0x1303, "TLS_CHACHA20_POLY1305_SHA256", 32, 32, AEAD_CHACHA20_POLY1305},
};

const struct tls_suite *tls13_suite(uint16_t id)
{
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		if (suites[i].id == id)
			return &suites[i];
	return NULL;
}

static const EVP_MD *hash_of(const struct tls_suite *s)
{
	return s->hash_len == 48 ? EVP_sha384() : EVP_sha256();
}

static const EVP_CIPHER *cipher_of(const struct tls_suite *s)
{
	switch (s->aead) {
	case AEAD_AES_128_GCM:
		return EVP_aes_128_gcm();
	case AEAD_AES_256_GCM:
		return EVP_aes_256_gcm();
	default:
		return EVP_chacha20_poly1305();
	}
}

/* HKDF-Expand-Label(secret, label, "", len) (RFC 8446 7.1): HKDF-Expand
 * of libcrypto over the HkdfLabel structure. */
static int expand_label(const struct tls_suite *s, const uint8_t *secret, const char *label,
			uint8_t *out, size_t len)
{
	uint8_t info[2 + 1 + 6 + 32 + 1];
	size_t ll = strlen(label);
	if (ll > 32)
		return -1;
	size_t n = 0;
	info[n++] = (uint8_t)(len >> 8);
	info[n++] = (uint8_t)len;
	info[n++] = (uint8_t)(6 + ll);
	memcpy(info + n, "tls13 ", 6);
	n += 6;
	memcpy(info + n, label, ll);
	n += ll;
	info[n++] = 0; /* no context */
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	size_t got = len;
	int ok = c && EVP_PKEY_derive_init(c) > 0 &&
		 EVP_PKEY_CTX_set_hkdf_mode(c, EVP_PKEY_HKDEF_MODE_EXPAND_ONLY) > 0 &&
		 EVP_PKEY_CTX_set_hkdf_md(c, hash_of(s)) > 0 &&
		 EVP_PKEY_CTX_set1_hkdf_key(c, secret, s->hash_len) > 0 &&
		 EVP_PKEY_CTX_add1_hkdf_info(c, info, (int)n) > 0 && EVP_PKEY_derive(c, out, &got) > 0 &&
		 got == len;
	EVP_PKEY_CTX_free(c);
	return ok ? 0 : -1;
}

static int derive_keys(struct tls_keys *k)
{
	k->seq = 0;
	if (expand_label(k->suite, k->secret, "key", k->key, k->suite->key_len) != 0 ||
	    expand_label(k->suite, k->secret, "iv", k->iv, sizeof k->iv) != 0)
		return -1;
	return 0;
}

int tls13_keys(struct tls_keys *k, const struct tls_suite *suite, const uint8_t *secret,
	       size_t len)
{
	tls_keys_clear(k);
	if (!suite || len != suite->hash_len)
		return -1;
	k->suite = suite;
	memcpy(k->secret, secret, len);
	return derive_keys(k);
}

int tls13_update(struct tls_keys *k)
{
	uint8_t next[TLS_SECRET_MAX];
	if (!k->suite || expand_label(k->suite, k->secret, "traffic upd", next, k->suite->hash_len) != 0)
		return -1;
	memcpy(k->secret, next, k->suite->hash_len);
	memset(next, 0, sizeof next);
	return derive_keys(k);
}

int tls13_open(struct tls_keys *k, const uint8_t hdr[5], const uint8_t *body, size_t n,
	       uint8_t *out, uint8_t *type)
{
	if (!k->suite || n <= TLS_TAG || n > TLS_RECORD_MAX)
		return -1;
	uint8_t nonce[12]; /* the iv, its last 8 bytes xor'ed with the sequence number */
	memcpy(nonce, k->iv, sizeof nonce);
	for (int i = 0; i < 8; i++)
		nonce[11 - i] ^= (uint8_t)(k->seq >> (8 * i));
	int len = (int)(n - TLS_TAG), got = 0, fin = 0;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int ok = c && EVP_DecryptInit_ex(c, cipher_of(k->suite), NULL, NULL, NULL) > 0 &&
		 EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, sizeof nonce, NULL) > 0 &&
		 EVP_DecryptInit_ex(c, NULL, NULL, k->key, nonce) > 0 &&
		 EVP_DecryptUpdate(c, NULL, &got, hdr, 5) > 0 && /* the header, authenticated */
		 EVP_DecryptUpdate(c, out, &got, body, len) > 0 &&
		 EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, TLS_TAG, (void *)(body + len)) > 0 &&
		 EVP_DecryptFinal_ex(c, out + got, &fin) > 0;
	EVP_CIPHER_CTX_free(c);
	if (!ok) {
		memset(out, 0, (size_t)len); /* nothing of a record that does not authenticate */
		return -1;
	}
	k->seq++;
	/* TLSInnerPlaintext: content, its type, zeros (5.4) */
	int end = got + fin;
	while (end > 0 && out[end - 1] == 0)
		end--;
	if (end == 0)
		return -1; /* all padding: no content type (a peer's error) */
	*type = out[end - 1];
	return end - 1;
}

void tls_keys_clear(struct tls_keys *k)
{
	memset(k, 0, sizeof(*k));
}
