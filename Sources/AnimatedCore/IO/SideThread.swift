/// A second thread for one piece of work while the caller does another (the halves of a large
/// frame's compression): the producer thread alone left a core idle while the first frame was
/// being prepared, with nothing on screen yet.
package enum SideThread {
    /// Runs `side` on a thread of its own and `body` on this one, and returns when both have.
    /// When no thread can be started, `side` runs here after `body`.
    package static func run(_ side: @escaping @Sendable () -> Void, alongside body: () -> Void) {
        let thread: ProducerThread
        do { thread = try ProducerThread(what: "compression") { side() } } catch {
            body()
            side()
            return
        }
        body()
        thread.join()
    }
}
