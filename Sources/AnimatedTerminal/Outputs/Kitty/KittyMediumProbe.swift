import AnimatedCore

/// The terminal probe's extra kitty queries that ask whether the terminal reads frame data
/// from a temporary file (`t=t`) or shared memory (`t=s`): each transmits a 1×1 image through
/// its medium with `a=q` (nothing is stored) and an id of its own; `OK` means it works. Not
/// sent over ssh (the terminal's machine is another one, whatever a probe might say).
/// `ANIMPLAY_KITTY_MEDIUM=direct|file|shm` limits the choice (benchmarks, troubleshooting).
package struct KittyMediumProbe {
    private var objects: [(KittyStager, String)] = []
    /// The queries to add to the terminal probe.
    package private(set) var queries: [[UInt8]] = []
    let env: [String: String]

    package init(env: [String: String]) {
        self.env = env
        guard !KittyMedium.overSSH(env) else { return }
        let only = env["ANIMPLAY_KITTY_MEDIUM"]
        let media: [(KittyMedium, UInt32, String)] = [(.sharedMemory, KittyMedium.sharedMemoryProbeID, "shm"),
                                                     (.file, KittyMedium.fileProbeID, "file")]
        for (medium, id, name) in media where only == nil || only == name {
            let stager = KittyStager(medium: medium)
            guard let probe = stager.probe(id: id) else { continue }
            queries.append(probe.query)
            objects.append((stager, probe.name))
        }
    }

    /// The medium the answers allow. Removes what the terminal did not take (kitty deletes
    /// the probe objects it read; one that never answered leaves them to us).
    package func finish(_ report: TerminalReport) -> KittyMedium {
        for (stager, name) in objects { stager.remove(name) }
        return KittyMedium.choose(replies: report.kittyReplies, env: env)
    }
}
