#ifndef CLINUX_H
#define CLINUX_H

/// renameat2(RENAME_NOREPLACE): fails with EEXIST instead of replacing what is at
/// the target (Swift's Glibc module does not expose renameat2).
int clinux_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// syncfs(2): flushes the whole file system holding `fd` (one call makes a batch of
/// files durable where one fsync each would cost a disk flush each).
int clinux_syncfs(int fd);

#endif
