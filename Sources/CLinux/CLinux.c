#define _GNU_SOURCE
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/vfs.h>
#include "CLinux.h"

int clinux_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

int clinux_syncfs(int fd) {
    return syncfs(fd);
}

long clinux_copy_file_range(int fd_in, long long *off_in, int fd_out, unsigned long len) {
    off_t offset = (off_t)*off_in;
    ssize_t n = copy_file_range(fd_in, &offset, fd_out, NULL, (size_t)len, 0);
    *off_in = (long long)offset;
    return (long)n;
}

int clinux_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}

long clinux_file_system_type(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 ? (long)info.f_type : 0;
}

int clinux_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowfd) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowfd);
}
