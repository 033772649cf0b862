/* Sockets as Linux gives them to a riscv64 program: socketpair, sendmsg/recvmsg with several
 * iovecs, SCM_RIGHTS and SCM_CREDENTIALS, sendmmsg/recvmmsg, AF_UNIX and AF_INET listen, accept4
 * and connect, the addresses, socket options (a BPF filter among them), shutdown, and the errors for
 * bad pointers and lengths. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "check_c.h"

static void test_socketpair(void) {
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    CHECK_EQ(fcntl(sv[0], F_GETFD), FD_CLOEXEC);
    CHECK_EQ(send(sv[0], "hello", 5, 0), 5);
    char buf[16] = {0};
    CHECK_EQ(recv(sv[1], buf, sizeof buf, 0), 5);
    CHECK_STR(buf, "hello");
    CHECK_EQ(recv(sv[1], buf, sizeof buf, MSG_DONTWAIT), -1);
    CHECK_EQ(errno, EAGAIN);
    /* shutdown: the peer reads end of file. */
    CHECK_EQ(shutdown(sv[0], SHUT_WR), 0);
    CHECK_EQ(recv(sv[1], buf, sizeof buf, 0), 0);
    CHECK_EQ(shutdown(sv[0], 7), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(send(sv[1], (const void *)8, 4, 0), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(recv(sv[1], (void *)8, 4, MSG_DONTWAIT), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, 8), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(socketpair(AF_INET, SOCK_STREAM, 0, sv), -1);
    CHECK_EQ(errno, EOPNOTSUPP);
    CHECK_EQ(send(1010, "x", 1, 0), -1); /* brisk's own descriptors are not the guest's */
    CHECK_EQ(errno, EBADF);
    close(sv[0]);
    close(sv[1]);
}

/* A datagram with SCM_RIGHTS carrying fd, split over two iovecs. */
static ssize_t send_fd(int sock, int fd, const char *a, const char *b) {
    struct iovec iov[2] = {{(void *)a, strlen(a)}, {(void *)b, strlen(b)}};
    union {
        struct cmsghdr h;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &msg, 0);
}

static void test_scm_rights(void) {
    int sv[2], p[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(send_fd(sv[0], p[1], "fd ", "follows"), 10);

    char head[4] = {0}, tail[16] = {0};
    struct iovec iov[2] = {{head, 3}, {tail, sizeof tail - 1}};
    union {
        struct cmsghdr h;
        char bytes[CMSG_SPACE(sizeof(int)) + 16];
    } control;
    memset(&control, 0xff, sizeof control);
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes, .msg_flags = -1};
    CHECK_EQ(recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC), 10);
    CHECK_STR(head, "fd ");
    CHECK_STR(tail, "follows");
    CHECK_EQ(msg.msg_flags, MSG_CMSG_CLOEXEC); /* Linux reports the flag back */
    CHECK_EQ(msg.msg_controllen, CMSG_SPACE(sizeof(int)));
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    CHECK(c != NULL);
    CHECK_EQ(c->cmsg_level, SOL_SOCKET);
    CHECK_EQ(c->cmsg_type, SCM_RIGHTS);
    CHECK_EQ(c->cmsg_len, CMSG_LEN(sizeof(int)));
    int got;
    memcpy(&got, CMSG_DATA(c), sizeof got);
    CHECK(got > p[1]);
    CHECK_EQ(fcntl(got, F_GETFD), FD_CLOEXEC);
    CHECK(CMSG_NXTHDR(&msg, c) == NULL);
    /* The descriptor received is the pipe's write end. */
    close(p[1]);
    CHECK_EQ(write(got, "ping", 4), 4);
    close(got);
    char buf[8] = {0};
    CHECK_EQ(read(p[0], buf, sizeof buf), 4);
    CHECK_STR(buf, "ping");
    CHECK_EQ(read(p[0], buf, sizeof buf), 0);

    /* A descriptor the guest does not have, brisk's own among them. */
    CHECK_EQ(send_fd(sv[0], 12345, "a", "b"), -1);
    CHECK_EQ(errno, EBADF);
    for (int fd = 1000; fd < 1016; fd++) {
        CHECK_EQ(send_fd(sv[0], fd, "a", "b"), -1);
        CHECK_EQ(errno, EBADF);
    }

    /* A datagram larger than the buffer: MSG_TRUNC, and no control data. */
    CHECK_EQ(send(sv[0], "0123456789", 10, 0), 10);
    char small[4];
    struct iovec one = {small, sizeof small};
    struct msghdr trunc = {.msg_iov = &one, .msg_iovlen = 1, .msg_control = control.bytes,
                           .msg_controllen = sizeof control.bytes};
    CHECK_EQ(recvmsg(sv[1], &trunc, 0), 4);
    CHECK_EQ(trunc.msg_flags, MSG_TRUNC);
    CHECK_EQ(trunc.msg_controllen, 0);
    CHECK_EQ(memcmp(small, "0123", 4), 0);

    /* SCM_CREDENTIALS: the sender's pid, uid and gid. */
    int on = 1;
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on), 0);
    CHECK_EQ(send(sv[0], "c", 1, 0), 1);
    trunc.msg_controllen = sizeof control.bytes;
    CHECK_EQ(recvmsg(sv[1], &trunc, 0), 1);
    CHECK_EQ(trunc.msg_flags, 0);
    c = CMSG_FIRSTHDR(&trunc);
    CHECK(c != NULL);
    CHECK_EQ(c->cmsg_type, SCM_CREDENTIALS);
    struct ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    CHECK_EQ(cred.pid, getpid());
    CHECK_EQ(cred.uid, getuid());
    CHECK_EQ(cred.gid, getgid());

    /* Bad pointers inside the message, and too many iovecs. */
    struct iovec bad_base = {(void *)8, 4}, ok = {buf, 1};
    const struct {
        struct msghdr msg;
        int err;
    } cases[] = {
        {{.msg_iov = (struct iovec *)8, .msg_iovlen = 1}, EFAULT},
        {{.msg_iov = &bad_base, .msg_iovlen = 1}, EFAULT},
        {{.msg_iov = &ok, .msg_iovlen = 1, .msg_control = (void *)8, .msg_controllen = 32}, EFAULT},
        {{.msg_name = (void *)8, .msg_namelen = 16, .msg_iov = &ok, .msg_iovlen = 1}, EFAULT},
        {{.msg_iov = &ok, .msg_iovlen = 1025}, EMSGSIZE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct msghdr m = cases[k].msg;
        CHECK_EQ(sendmsg(sv[0], &m, 0), -1);
        CHECK_EQ(errno, cases[k].err);
    }
#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 drops the header and sends the message */
    /* A control header longer than the control data: the message is refused. */
    union {
        struct cmsghdr h;
        char bytes[CMSG_SPACE(sizeof(int))];
    } huge;
    memset(&huge, 0, sizeof huge);
    huge.h.cmsg_level = SOL_SOCKET;
    huge.h.cmsg_type = SCM_RIGHTS;
    huge.h.cmsg_len = (size_t)-8;
    struct msghdr hm = {.msg_iov = &ok, .msg_iovlen = 1, .msg_control = huge.bytes, .msg_controllen = sizeof huge};
    CHECK_EQ(sendmsg(sv[0], &hm, 0), -1);
    CHECK_EQ(errno, EINVAL);
#endif
    struct msghdr bad = cases[0].msg;
    CHECK_EQ(recvmsg(sv[1], &bad, MSG_DONTWAIT), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(sendmsg(sv[0], (struct msghdr *)8, 0), -1);
    CHECK_EQ(errno, EFAULT);

    /* sendmmsg and recvmmsg: two datagrams at once, each length reported. */
    char r0[16] = {0}, r1[16] = {0};
    struct iovec m_iov[4] = {{"first", 5}, {"second!", 7}, {r0, sizeof r0}, {r1, sizeof r1}};
    struct mmsghdr out[2], in[2];
    memset(out, 0, sizeof out);
    memset(in, 0, sizeof in);
    for (int k = 0; k < 2; k++) {
        out[k].msg_hdr.msg_iov = &m_iov[k];
        out[k].msg_hdr.msg_iovlen = 1;
        in[k].msg_hdr.msg_iov = &m_iov[2 + k];
        in[k].msg_hdr.msg_iovlen = 1;
    }
    CHECK_EQ(sendmmsg(sv[0], out, 2, 0), 2);
    CHECK_EQ(out[0].msg_len, 5);
    CHECK_EQ(out[1].msg_len, 7);
    CHECK_EQ(recvmmsg(sv[1], in, 2, MSG_DONTWAIT, NULL), 2);
    CHECK_EQ(in[0].msg_len, 5);
    CHECK_EQ(in[1].msg_len, 7);
    CHECK_STR(r0, "first");
    CHECK_STR(r1, "second!");
    CHECK_EQ(sendmmsg(sv[0], out, 0, 0), 0);
#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 sends none without looking at the descriptor */
    CHECK_EQ(sendmmsg(12345, out, 0, 0), -1);
    CHECK_EQ(errno, EBADF);
#endif
    /* A bad second message: the first is still sent. */
    out[1].msg_hdr.msg_iov = (struct iovec *)8;
    CHECK_EQ(sendmmsg(sv[0], out, 2, 0), 1);
    CHECK_EQ(recv(sv[1], r0, sizeof r0, 0), 5);
    close(sv[0]);
    close(sv[1]);
    close(p[0]);
}

/* SO_ATTACH_FILTER: a classic BPF program, which the option's struct sock_fprog points at. */
static void test_filter(void) {
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    struct sock_filter drop[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
    struct sock_fprog prog = {.len = 1, .filter = drop};
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog), 0);
    CHECK_EQ(send(sv[0], "dropped", 7, 0), 7);
    char buf[16];
    CHECK_EQ(recv(sv[1], buf, sizeof buf, MSG_DONTWAIT), -1);
    CHECK_EQ(errno, EAGAIN);
    /* Keep the first 3 bytes of each datagram. */
    struct sock_filter cut[] = {BPF_STMT(BPF_RET | BPF_K, 3)};
    prog.filter = cut;
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog), 0);
    CHECK_EQ(send(sv[0], "kept", 4, 0), 4);
    CHECK_EQ(recv(sv[1], buf, sizeof buf, 0), 3);
    CHECK_EQ(memcmp(buf, "kep", 3), 0);
    prog.filter = (struct sock_filter *)8;
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog), -1);
    CHECK_EQ(errno, EFAULT);
#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 reads the instructions first */
    prog.len = 0;
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog), -1);
    CHECK_EQ(errno, EINVAL);
#endif
    close(sv[0]);
    close(sv[1]);
}

static void test_unix_listen(void) {
    char dir[] = "/tmp/brisk-sockets-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s/listen", dir);
    const socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(addr.sun_path) + 1;
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(l >= 0);
    CHECK_EQ(bind(l, (struct sockaddr *)&addr, len), 0);
    struct stat st;
    CHECK_EQ(stat(addr.sun_path, &st), 0);
    CHECK(S_ISSOCK(st.st_mode));
    CHECK_EQ(listen(l, 4), 0);

    struct sockaddr_un name;
    socklen_t name_len = sizeof name;
    memset(&name, 0, sizeof name);
    CHECK_EQ(getsockname(l, (struct sockaddr *)&name, &name_len), 0);
    CHECK_EQ(name_len, len);
    CHECK_STR(name.sun_path, addr.sun_path);
    /* A short buffer: the address cut, its full length reported. */
    name_len = 4;
    memset(&name, 0x77, sizeof name);
    CHECK_EQ(getsockname(l, (struct sockaddr *)&name, &name_len), 0);
    CHECK_EQ(name_len, len);
    CHECK_EQ(name.sun_path[1], dir[1]);
    CHECK_EQ(name.sun_path[2], 0x77);

    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK_EQ(connect(c, (struct sockaddr *)&addr, len), 0);
    struct sockaddr_un peer;
    socklen_t peer_len = sizeof peer;
    int a = accept4(l, (struct sockaddr *)&peer, &peer_len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    CHECK(a >= 0);
    CHECK_EQ(peer_len, sizeof(sa_family_t)); /* an unbound client */
    CHECK_EQ(peer.sun_family, AF_UNIX);
    CHECK_EQ(fcntl(a, F_GETFD), FD_CLOEXEC);
    CHECK_EQ(fcntl(a, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
    name_len = sizeof name;
    CHECK_EQ(getpeername(c, (struct sockaddr *)&name, &name_len), 0);
    CHECK_STR(name.sun_path, addr.sun_path);
    CHECK_EQ(write(c, "over unix", 9), 9);
    char buf[16] = {0};
    CHECK_EQ(read(a, buf, sizeof buf), 9);
    CHECK_STR(buf, "over unix");
    /* No one waiting on a listener made non-blocking; no address wanted. */
    CHECK_EQ(fcntl(l, F_SETFL, O_NONBLOCK), 0);
    CHECK_EQ(accept4(l, NULL, NULL, 0), -1);
    CHECK_EQ(errno, EAGAIN);

    /* The errors for addresses. */
    CHECK_EQ(bind(c, (struct sockaddr *)&addr, 200), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(bind(c, (struct sockaddr *)&addr, -1), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(connect(c, (struct sockaddr *)8, len), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(getsockname(l, (struct sockaddr *)&name, (socklen_t *)8), -1);
    CHECK_EQ(errno, EFAULT);
    name_len = sizeof name;
    CHECK_EQ(getsockname(l, (struct sockaddr *)8, &name_len), -1);
    CHECK_EQ(errno, EFAULT);
    name_len = -1;
    CHECK_EQ(getsockname(l, (struct sockaddr *)&name, &name_len), -1);
    CHECK_EQ(errno, EINVAL);
    name_len = sizeof name;
    CHECK_EQ(getsockname(12345, (struct sockaddr *)&name, &name_len), -1);
    CHECK_EQ(errno, EBADF);
    close(a);
    close(c);
    close(l);
    CHECK_EQ(unlink(addr.sun_path), 0);
    CHECK_EQ(rmdir(dir), 0);
}

static void test_inet(void) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(l >= 0);
    int on = 1, v = 0;
    socklen_t vlen = sizeof v;
    CHECK_EQ(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on), 0);
    CHECK_EQ(getsockopt(l, SOL_SOCKET, SO_REUSEADDR, &v, &vlen), 0);
    CHECK_EQ(v, 1);
    CHECK_EQ(vlen, sizeof v);
    vlen = sizeof v;
    CHECK_EQ(getsockopt(l, SOL_SOCKET, SO_TYPE, &v, &vlen), 0);
    CHECK_EQ(v, SOCK_STREAM);
#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 takes a negative length */
    CHECK_EQ(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, -1), -1);
    CHECK_EQ(errno, EINVAL);
#endif
    CHECK_EQ(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, (void *)8, sizeof on), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(getsockopt(l, SOL_SOCKET, SO_TYPE, &v, (socklen_t *)8), -1);
    CHECK_EQ(errno, EFAULT);

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(bind(l, (struct sockaddr *)&addr, sizeof addr), 0);
    CHECK_EQ(listen(l, 1), 0);
    struct sockaddr_in bound;
    socklen_t blen = sizeof bound;
    CHECK_EQ(getsockname(l, (struct sockaddr *)&bound, &blen), 0);
    CHECK_EQ(blen, sizeof bound);
    CHECK_EQ(bound.sin_family, AF_INET);
    CHECK_EQ(ntohl(bound.sin_addr.s_addr), INADDR_LOOPBACK);
    CHECK(bound.sin_port != 0);

    int c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_EQ(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on), 0);
    CHECK_EQ(connect(c, (struct sockaddr *)&bound, sizeof bound), 0);
    struct sockaddr_in peer, mine;
    socklen_t plen = sizeof peer, mlen = sizeof mine;
    int a = accept4(l, (struct sockaddr *)&peer, &plen, 0);
    CHECK(a >= 0);
    CHECK_EQ(plen, sizeof peer);
    CHECK_EQ(getsockname(c, (struct sockaddr *)&mine, &mlen), 0);
    CHECK_EQ(peer.sin_port, mine.sin_port);
    CHECK_EQ(peer.sin_addr.s_addr, mine.sin_addr.s_addr);
    CHECK_EQ(sendto(c, "tcp!", 4, 0, NULL, 0), 4);
    char buf[8] = {0};
    struct sockaddr_in from;
    socklen_t flen = sizeof from;
    CHECK_EQ(recvfrom(a, buf, 4, MSG_WAITALL, (struct sockaddr *)&from, &flen), 4);
    CHECK_EQ(flen, 0); /* a connected stream names no sender */
    CHECK_STR(buf, "tcp!");
    close(a);
    close(c);

    /* UDP: recvfrom names the sender. */
    int u = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK_EQ(bind(u, (struct sockaddr *)&addr, sizeof addr), 0);
    blen = sizeof bound;
    CHECK_EQ(getsockname(u, (struct sockaddr *)&bound, &blen), 0);
    CHECK_EQ(sendto(s, "udp", 3, 0, (struct sockaddr *)&bound, sizeof bound), 3);
    flen = sizeof from;
    memset(buf, 0, sizeof buf);
    CHECK_EQ(recvfrom(u, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen), 3);
    CHECK_STR(buf, "udp");
    CHECK_EQ(flen, sizeof from);
    mlen = sizeof mine;
    CHECK_EQ(getsockname(s, (struct sockaddr *)&mine, &mlen), 0);
    CHECK_EQ(from.sin_port, mine.sin_port);
    CHECK_EQ(sendto(s, "udp", 3, 0, (struct sockaddr *)8, sizeof bound), -1);
    CHECK_EQ(errno, EFAULT);
    close(u);
    close(s);
    close(l);
}

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* `sockets pointer_options`: options whose values hold pointers, as iptables' IPT_SO_SET_REPLACE
 * (IPPROTO_IP 64) and SOL_XDP's XDP_UMEM_REG (4), are refused with ENOPROTOOPT, each warned about
 * once (tests/guest/CMakeLists.txt checks stderr). */
static void test_pointer_options(void) {
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(s >= 0);
    char buf[64] = {0};
    for (int k = 0; k < 2; k++) {
        errno = 0;
        CHECK_EQ(setsockopt(s, IPPROTO_IP, 64, buf, sizeof buf), -1);
        CHECK_EQ(errno, ENOPROTOOPT);
        errno = 0;
        CHECK_EQ(setsockopt(s, SOL_XDP, 4, buf, sizeof buf), -1);
        CHECK_EQ(errno, ENOPROTOOPT);
    }
    close(s);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "pointer_options") == 0) {
        test_pointer_options();
        return 0;
    }
    /* `sockets bind_unix PATH`: binds an AF_UNIX socket at PATH and leaves it there, for a test to
     * look for (--sysroot does not apply to socket paths). */
    if (argc == 3 && strcmp(argv[1], "bind_unix") == 0) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(s >= 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        CHECK(strlen(argv[2]) < sizeof a.sun_path);
        strcpy(a.sun_path, argv[2]);
        CHECK_EQ(bind(s, (struct sockaddr *)&a, sizeof a), 0);
        return 0;
    }
    test_socketpair();
    test_scm_rights();
    test_filter();
    test_unix_listen();
    test_inet();
    return 0;
}
