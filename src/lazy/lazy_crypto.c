/* lazy_crypto.c - OpenSSL's libcrypto, loaded on its first call (lazy.h):
 * the decryption of TLS records (src/tls/), which only a run given a key
 * log needs. */
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "lazy_stub.h"

#ifndef PGRTT_CRYPTO_SONAME
#define PGRTT_CRYPTO_SONAME "libcrypto.so.3"
#endif

#define CRYPTO_FUNCS(X, V, N)                                                             \
	X(EVP_CIPHER_CTX *, EVP_CIPHER_CTX_new, (void), ())                               \
	V(EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX * c), (c))                                 \
	X(int, EVP_DecryptInit_ex,                                                        \
	  (EVP_CIPHER_CTX * c, const EVP_CIPHER *t, ENGINE *e, const unsigned char *k,     \
	   const unsigned char *iv),                                                      \
	  (c, t, e, k, iv))                                                               \
	X(int, EVP_CIPHER_CTX_ctrl, (EVP_CIPHER_CTX * c, int type, int arg, void *ptr),   \
	  (c, type, arg, ptr))                                                            \
	X(int, EVP_DecryptUpdate,                                                         \
	  (EVP_CIPHER_CTX * c, unsigned char *out, int *outl, const unsigned char *in,     \
	   int inl),                                                                      \
	  (c, out, outl, in, inl))                                                        \
	X(int, EVP_DecryptFinal_ex, (EVP_CIPHER_CTX * c, unsigned char *out, int *outl),  \
	  (c, out, outl))                                                                 \
	X(const EVP_CIPHER *, EVP_aes_128_gcm, (void), ())                                \
	X(const EVP_CIPHER *, EVP_aes_256_gcm, (void), ())                                \
	X(const EVP_CIPHER *, EVP_chacha20_poly1305, (void), ())                          \
	X(const EVP_MD *, EVP_sha256, (void), ())                                         \
	X(const EVP_MD *, EVP_sha384, (void), ())                                         \
	X(EVP_PKEY_CTX *, EVP_PKEY_CTX_new_id, (int id, ENGINE *e), (id, e))              \
	V(EVP_PKEY_CTX_free, (EVP_PKEY_CTX * c), (c))                                     \
	X(int, EVP_PKEY_derive_init, (EVP_PKEY_CTX * c), (c))                             \
	X(int, EVP_PKEY_derive, (EVP_PKEY_CTX * c, unsigned char *key, size_t *keylen),  \
	  (c, key, keylen))                                                               \
	X(int, EVP_PKEY_CTX_set_hkdf_mode, (EVP_PKEY_CTX * c, int mode), (c, mode))       \
	X(int, EVP_PKEY_CTX_set_hkdf_md, (EVP_PKEY_CTX * c, const EVP_MD *md), (c, md))   \
	X(int, EVP_PKEY_CTX_set1_hkdf_key,                                                \
	  (EVP_PKEY_CTX * c, const unsigned char *key, int keylen), (c, key, keylen))      \
	X(int, EVP_PKEY_CTX_add1_hkdf_info,                                               \
	  (EVP_PKEY_CTX * c, const unsigned char *info, int infolen), (c, info, infolen))

LAZY_LIBRARY(crypto, CRYPTO_FUNCS, PGRTT_CRYPTO_SONAME, "libssl3");
#define LAZY_THIS crypto
CRYPTO_FUNCS(LAZY_DEFINE, LAZY_DEFINE_VOID, LAZY_NONE)
