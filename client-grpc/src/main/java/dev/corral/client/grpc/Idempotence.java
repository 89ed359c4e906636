package dev.corral.client.grpc;

/** Whether an operation may be sent again after its answer was lost. */
enum Idempotence {
  /** Repeating it has the same effect as doing it once (reads, watches, unconditional writes, deletes). */
  REPEATABLE,
  /** Not repeatable as such, but a retry first looks for the node of the lost attempt (protected create). */
  PROTECTED,
  /** Must not be repeated: a second attempt could act twice or report a misleading failure. */
  ONCE
}
