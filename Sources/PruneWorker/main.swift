import Events
import Foundation

let configuration = Configuration.loadOrExit(component: "PruneWorker")
let logger = Logger(component: "PruneWorker", minimumLevel: configuration.logLevel)
exit(await ServiceRunner.run(PruneWorker.make(configuration: configuration, logger: logger), logger: logger))
