import Events
import Glibc

exit(
  await ChannelWorker.main(component: "WebPushWorker") {
    try WebPushWorker.make(configuration: $0, logger: $1, clock: $2)
  })
