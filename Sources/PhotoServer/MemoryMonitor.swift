import Logging
import PhotoPipeline
import PhotoWeb
import ServiceLifecycle

/// The tutorial's `didReceiveMemoryWarning` for a server: on each tick, when the process's resident
/// memory is past its limit, the list's pipeline gives up queued work and cached images (rows on
/// screen are asked for again with the next viewport report). One service of the server's group.
struct MemoryMonitor: Service {
    let web: WebApplication
    let tick: Duration
    let limit: Int

    func run() async {
        await cancelWhenGracefulShutdown {
            var lastWarning = ContinuousClock.now - .seconds(3_600)
            while !Task.isCancelled {
                do { try await Task.sleep(for: tick) } catch { return }
                // At most one warning per 10 s: the allocator may keep freed memory a while.
                guard let pipeline = web.pipeline, ContinuousClock.now - lastWarning > .seconds(10),
                      let resident = ResidentMemory.bytes(), resident > limit else { continue }
                lastWarning = .now
                web.logger.warning("memory warning: cancelling work and emptying the image cache", metadata: [
                    "resident": "\(resident / 1_048_576) MiB", "limit": "\(limit / 1_048_576) MiB",
                ])
                pipeline.handleMemoryWarning()
            }
        }
    }
}
