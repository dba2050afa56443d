#ifndef CLINUX_H
#define CLINUX_H

/// renameat2(RENAME_NOREPLACE): fails with EEXIST instead of replacing what is at
/// the target (Swift's Glibc module does not expose renameat2).
int clinux_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// syncfs(2): flushes the whole file system holding `fd` (one call makes a batch of
/// files durable where one fsync each would cost a disk flush each).
int clinux_syncfs(int fd);

/// copy_file_range(2) from `fd_in` at `*off_in` (moved on) to `fd_out` at its file offset
/// (moved on): bytes copied inside the kernel (a reflink where the file system can), or -1.
long clinux_copy_file_range(int fd_in, long long *off_in, int fd_out, unsigned long len);

/// sync_file_range(SYNC_FILE_RANGE_WRITE): starts writing back that range of `fd` without
/// waiting (the fsync that makes it durable comes later, and has less left to do).
int clinux_start_writeback(int fd, long long offset, long long length);

/// fstatfs(2)'s f_type: the kind of file system holding `fd` (its magic number), or 0.
long clinux_file_system_type(int fd);

/// posix_spawn_file_actions_addclosefrom_np(3): the spawned program inherits no descriptor
/// from `lowfd` up (glibc 2.34; Swift's Glibc module does not expose it).
#include <spawn.h>
int clinux_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowfd);

#endif
