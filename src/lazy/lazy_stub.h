/* lazy_stub.h - what each library's stub file shares (lazy.h): a table
 * of its functions, X(ret, name, params, args) for those that return a
 * value, V(name, params, args) for void ones and N(name) for the variadic
 * ones (forwarded by hand: a call through a pointer of another type is
 * undefined), becomes the names, the resolved pointers, and a forwarding
 * definition for each X and V. */
#ifndef PGRTT_LAZY_STUB_H
#define PGRTT_LAZY_STUB_H

#include "lazy.h"

#define LAZY_NAME(ret, name, params, args) #name,
#define LAZY_VNAME(name, params, args) #name,
#define LAZY_NNAME(name) #name,
#define LAZY_IDX(ret, name, params, args) LAZY_I_##name,
#define LAZY_VIDX(name, params, args) LAZY_I_##name,
#define LAZY_NIDX(name) LAZY_I_##name,
#define LAZY_NONE(...)

/* The function's pointer, its library loaded first if need be. */
#define LAZY_FN(lib, ret, name, params)                                                   \
	((ret(*) params)(__atomic_load_n(&(lib).syms[(lib).n - 1], __ATOMIC_ACQUIRE)     \
				 ? (lib).syms[LAZY_I_##name]                            \
				 : (lazy_load(&(lib)), (lib).syms[LAZY_I_##name])))

/* One forwarding definition: FUNCS(LAZY_DEFINE, LAZY_DEFINE_VOID,
 * LAZY_NONE) after #define LAZY_THIS LIB. */
#define LAZY_DEFINE(ret, name, params, args)                                              \
	ret name params                                                                   \
	{                                                                                 \
		return LAZY_FN(LAZY_THIS, ret, name, params) args;                        \
	}
#define LAZY_DEFINE_VOID(name, params, args)                                              \
	void name params                                                                  \
	{                                                                                 \
		LAZY_FN(LAZY_THIS, void, name, params) args;                              \
	}

/* Defines struct lazy_lib LIB for the table FUNCS(X, V, N). */
#define LAZY_LIBRARY(LIB, FUNCS, SONAME, PACKAGE)                                         \
	enum { FUNCS(LAZY_IDX, LAZY_VIDX, LAZY_NIDX) LAZY_N_##LIB };                       \
	static const char *const LIB##_names[] = {FUNCS(LAZY_NAME, LAZY_VNAME, LAZY_NNAME)}; \
	static void *LIB##_syms[LAZY_N_##LIB];                                             \
	static struct lazy_lib LIB = {SONAME, PACKAGE, LIB##_names, LAZY_N_##LIB, LIB##_syms}

#endif
