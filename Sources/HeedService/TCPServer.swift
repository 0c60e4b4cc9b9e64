#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Heed
import Synchronization

/// A TCP listener with a thread per connection, at most `maxConnections` at once. The socket
/// calls live here only; connections are handed over as `TCPConnection`.
final class TCPServer: Sendable {
    let port: Int
    private let socket: Int32
    private let maxConnections: Int
    private let open = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    /// Binds `host:port` (port 0: any free port, see `port`).
    init(host: String, port: Int, maxConnections: Int) throws(HeedError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw HeedError(.configuration, "cannot resolve '\(host)' to listen on")
        }
        defer { freeaddrinfo(found) }
        let fd = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { throw HeedError(.unavailable, "cannot make a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, 16) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw HeedError(.unavailable, "cannot listen on \(host):\(port): \(why)")
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let bound = withUnsafePointer(to: &address) { pointer -> Int in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        self.port = bound
        self.socket = fd
        self.maxConnections = maxConnections
    }

    /// Accepts on a thread of its own until `stop`; each connection runs `handle` on its own
    /// thread. Past `maxConnections`, `refuse` gets the connection instead, then it is closed.
    func start(handle: @escaping @Sendable (TCPConnection) -> Void, refuse: @escaping @Sendable (TCPConnection) -> Void) {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 200) > 0 else { continue }
                let client = accept(socket, nil, nil)
                guard client >= 0 else { continue }
                var timeout = timeval(tv_sec: 30, tv_usec: 0)  // a peer that stops reading cannot hold a thread
                setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let connection = TCPConnection(fd: client, stopping: { [self] in stopping.load(ordering: .relaxed) })
                guard open.add(1, ordering: .relaxed).newValue <= maxConnections else {
                    refuse(connection)
                    connection.close()
                    open.subtract(1, ordering: .relaxed)
                    continue
                }
                let worker = Thread { [self] in
                    handle(connection)
                    connection.close()
                    open.subtract(1, ordering: .relaxed)
                }
                worker.name = "heed-wyoming-client"
                worker.start()
            }
            Glibc.close(socket)
        }
        thread.name = "heed-wyoming"
        thread.start()
    }

    func stop() { stopping.store(true, ordering: .relaxed) }
}

/// One accepted connection: blocking writes, reads that wake up to notice the server stopping.
final class TCPConnection: Sendable {
    private let fd: Int32
    private let closed = Atomic<Bool>(false)
    private let stopping: @Sendable () -> Bool

    init(fd: Int32, stopping: @escaping @Sendable () -> Bool) {
        self.fd = fd
        self.stopping = stopping
    }

    /// The next bytes; nil when the peer closed, the connection failed, or the server is stopping.
    func read() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopping() {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 200)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            guard polled > 0 else { return nil }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            return Array(buffer[..<count])
        }
        return nil
    }

    /// Writes all of `bytes`; false when the peer is gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    func close() {
        if !closed.exchange(true, ordering: .relaxed) { Glibc.close(fd) }
    }
}
