/* paths.h - files' folders made as they are needed. */
#ifndef PGRTT_PATHS_H
#define PGRTT_PATHS_H

/* The directories a file's path names, made as mkdir -p would (mode, less
 * the umask, for those it makes).  0, or -1 with errno. */
int make_parents(const char *path, unsigned mode);

#endif
