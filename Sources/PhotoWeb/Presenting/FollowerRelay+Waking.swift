import Locking

extension FollowerRelay {
    /// The relay's wait between hand-ons: a pace, or less when a move is told.
    struct Alarm {
        /// The waiting relay, resumed by the pace's end or a move.
        var sleeper: CheckedContinuation<Void, Never>?
        /// Rung while nobody waited: the next wait returns at once.
        var rung = false
    }

    /// Waits until `pace` has passed since the wait began, or a move is told, or the task is cancelled.
    func waitForHandOn(pace: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                // Cancelled once the wait is over: only a whole pace rings.
                do { try await Task.sleep(for: pace) } catch { return }
                wake()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (sleeper: CheckedContinuation<Void, Never>) in
                    let ready = alarm.withLock { alarm -> Bool in
                        if alarm.rung {
                            alarm.rung = false
                            return true
                        }
                        alarm.sleeper = sleeper
                        return false
                    }
                    if ready { sleeper.resume() }
                }
            } onCancel: {
                wake()
            }
            group.cancelAll()
        }
    }

    /// Ends the relay's wait now (or its next one, at once).
    func wake() {
        let sleeper = alarm.withLock { alarm -> CheckedContinuation<Void, Never>? in
            guard let sleeper = alarm.sleeper.take() else {
                alarm.rung = true
                return nil
            }
            return sleeper
        }
        sleeper?.resume()
    }
}
