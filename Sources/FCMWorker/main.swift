import Events
import Glibc

exit(
  await ChannelWorker.main(component: "FCMWorker") {
    try FCMWorker.make(configuration: $0, logger: $1, clock: $2)
  })
