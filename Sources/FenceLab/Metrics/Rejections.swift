/// A fix the monitor rejected, and why.
package struct Rejection: Sendable, Hashable {
    /// Index of the fix in the delivered stream.
    package var fixIndex: Int
    /// Reason name, e.g. `inaccurate`, `stale` (FenceMonitor's reason raw values).
    package var reason: String

    package init(fixIndex: Int, reason: String) {
        self.fixIndex = fixIndex
        self.reason = reason
    }
}

/// A fault the generator injected into a delivered fix.
package struct LabelledFault: Sendable, Hashable {
    /// Index of the faulty fix in the delivered stream.
    package var fixIndex: Int
    /// Fault name, e.g. `stale`, `duplicate`, `invalidValue`.
    package var label: String

    package init(fixIndex: Int, label: String) {
        self.fixIndex = fixIndex
        self.label = label
    }
}

/// Rejections by reason and labelled faults caught (docs/metrics.md, `rejections`).
package struct RejectionMetrics: Sendable, Hashable {
    /// reason → number of rejected fixes.
    package var byReason: [String: Int]
    /// fault label → number of labelled fixes.
    package var faultsLabelled: [String: Int]
    /// fault label → number of labelled fixes the monitor rejected (for any reason).
    package var faultsCaught: [String: Int]

    package init(byReason: [String: Int], faultsLabelled: [String: Int] = [:], faultsCaught: [String: Int] = [:]) {
        self.byReason = byReason
        self.faultsLabelled = faultsLabelled
        self.faultsCaught = faultsCaught
    }

    /// Counts rejections and which labelled faults were rejected. A fault is caught when
    /// its fix index appears among the rejections; the reason need not match the label.
    package static func measure(rejections: [Rejection], faults: [LabelledFault]) -> RejectionMetrics {
        var byReason: [String: Int] = [:]
        var rejected = Set<Int>()
        for r in rejections {
            byReason[r.reason, default: 0] += 1
            rejected.insert(r.fixIndex)
        }
        var labelled: [String: Int] = [:]
        var caught: [String: Int] = [:]
        for f in faults {
            labelled[f.label, default: 0] += 1
            caught[f.label, default: 0] += rejected.contains(f.fixIndex) ? 1 : 0
        }
        return RejectionMetrics(byReason: byReason, faultsLabelled: labelled, faultsCaught: caught)
    }
}
