import PhotoCluster
import PhotoWeb
import ServiceLifecycle
import NIOCore

extension PhotoServer {
    /// The services of the server's group, in start order; a graceful shutdown goes through them in
    /// reverse: viewers told and their streams ended first, the HTTP server last.
    struct Services {
        let configuration: ServerConfiguration
        let web: WebApplication
        let cluster: Cluster?
        let origin: SampleOriginLink
        let loaded: Completion<Void>
        let stopping: Completion<Void>
        let handlingSignals: Bool

        func all(mainPort: Completion<Int?>, redirectPort: Completion<Int?>) -> [ServiceGroupConfiguration.ServiceConfiguration] {
            let web = web, stopping = stopping
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
                .init(service: web.server { mainPort.complete($0.localAddress?.port) }, serviceName: "http"),
            ]
            if web.configuration.tls != nil, web.configuration.httpRedirectPort != nil {
                // The redirect names the HTTPS port, known once that server listens (it may be 0 in the configuration).
                services.append(.init(service: ClosureService {
                    guard let https = await mainPort.wait(),
                          let redirect = web.redirect(httpsPort: https, onServerRunning: { redirectPort.complete($0.localAddress?.port) })
                    else { return }
                    try await redirect.run()
                }, serviceName: "https-redirect"))
            }
            services += [
                .init(service: ListService(configuration: configuration, web: web, cluster: cluster, loaded: loaded, link: origin), serviceName: "photo-list"),
                .init(service: ClosureService { await cancelWhenGracefulShutdown { await web.runTicks() } }, serviceName: "ticks"),
                .init(
                    service: MemoryMonitor(web: web, tick: configuration.web.tick, limit: configuration.effectiveMemoryLimit),
                    serviceName: "memory-monitor"),
            ]
            if handlingSignals, web.configuration.tls != nil {
                // A renewed certificate is taken up on SIGHUP; a failed reload is logged and the old one stays.
                services.append(.init(service: CertificateReloadService(web: web), serviceName: "certificate-reload"))
            }
            // Shut down first: viewers hear why their streams end before the server stops listening.
            services.append(.init(service: ClosureService {
                try? await gracefulShutdown()
                stopping.complete()
                web.closeViewers()
            }, serviceName: "viewers-farewell"))
            return services
        }
    }
}
