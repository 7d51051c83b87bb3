/* about.h - what this pgrtt is: version, git commit, build date, arch. */
#ifndef PGRTT_ABOUT_H
#define PGRTT_ABOUT_H

/* "pgrtt 0.1.0 (git 1a2b3c4d5e6f, built 2026-11-30, x86_64)" */
const char *pgrtt_version_string(void);

#endif
