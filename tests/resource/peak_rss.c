/* peak_rss.c PROGRAM [ARG...] - runs PROGRAM and prints its peak RSS in KiB
 * on stderr, then exits with its status.
 *
 * A child's ru_maxrss includes what it held before its exec: the copy of a
 * Python test's ~10 MiB that fork made.  Started from this small process,
 * the figure is the program's own (or this one's ~1 MiB, whichever is
 * more). */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: peak_rss PROGRAM [ARG...]\n", stderr);
		return 64;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 2;
	}
	if (pid == 0) {
		execv(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("peak_rss: wait4");
		return 2;
	}
	fprintf(stderr, "peak_rss %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
