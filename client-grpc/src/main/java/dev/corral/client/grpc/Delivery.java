package dev.corral.client.grpc;

/** Where the future of a request is completed once its answer arrives. */
enum Delivery {
  /** On the event queue, after every watch event received before the answer: async calls. */
  QUEUED,
  /**
   * On the receiving thread when the event queue is idle (every event received
   * before the answer has been delivered), else on the queue: calls whose caller
   * blocks on the answer, with no user code chained on it. Spares the blocked
   * caller one thread switch.
   */
  AWAITED,
  /** On the receiving thread at once: internal requests, and calls made on the event thread itself. */
  DIRECT
}
