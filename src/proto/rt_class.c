/* rt_class.c - the names of round trips' classes and ping roles (see
 * rt_class.h). */
#include "rt_class.h"

#include <stdio.h>

bool rt_class_is_other(int cls)
{
	return cls != RT_QUERY && cls != RT_PING && cls != RT_RESET && cls != RT_TRANSACTION &&
	       cls != RT_PREPARE;
}

const char *rt_class_name(int cls)
{
	static const char *names[] = {
#define X(id, name) name,
		RT_CLASSES(X)
#undef X
	};
	return cls >= 0 && cls < RT_NCLASS ? names[cls] : "?";
}

const char *rt_ping_role_name(int role)
{
	static const char *names[] = {"none", "acquire", "release", "idle"};
	return role >= 0 && role < PING_NROLE ? names[role] : "?";
}

const char *rt_label(int cls, int role, char *buf, size_t cap)
{
	return rt_label_how(cls, role, ROLE_PLAIN, buf, cap);
}

const char *rt_label_how(int cls, int role, int how, char *buf, size_t cap)
{
	if (cls != RT_PING)
		return rt_class_name(cls);
	snprintf(buf, cap, "ping/%s%s", rt_ping_role_name(role),
		 how == ROLE_POLICY ? "~" : how == ROLE_TIMING ? "?" : "");
	return buf;
}

