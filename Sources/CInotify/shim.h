#ifndef CINOTIFY_SHIM_H
#define CINOTIFY_SHIM_H
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <poll.h>
#endif
