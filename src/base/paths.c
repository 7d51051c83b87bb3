/* paths.c - files' folders made as they are needed (see paths.h). */
#define _DEFAULT_SOURCE /* mkdir */
#include "paths.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int make_parents(const char *path, unsigned mode)
{
	char dir[4096];
	if (strlen(path) >= sizeof dir)
		return errno = ENAMETOOLONG, -1;
	strcpy(dir, path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, (mode_t)mode) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}
