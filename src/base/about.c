/* about.c - the version line (version.h is generated at build time). */
#include "about.h"

#include "version.h"

const char *pgrtt_version_string(void)
{
	return "pgrtt " PGRTT_VERSION " (git " PGRTT_GIT_HASH ", built " PGRTT_BUILD_DATE ", "
	       PGRTT_ARCH ")";
}
