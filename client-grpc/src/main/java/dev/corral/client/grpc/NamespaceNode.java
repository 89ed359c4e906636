package dev.corral.client.grpc;

import dev.corral.client.Code;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the namespace's node (and its ancestors) before the first operation,
 * as Curator does. The creation is queued ahead of that operation on the same
 * session, so answers in request order make it take effect first. Tried again
 * before a later operation if its answer was lost.
 */
final class NamespaceNode {
  private static final Logger log = LoggerFactory.getLogger(NamespaceNode.class);

  private final SessionManager session;
  private final Namespace namespace;
  private volatile boolean done;
  private boolean inFlight; // guarded by this

  NamespaceNode(SessionManager session, Namespace namespace) {
    this.session = session;
    this.namespace = namespace;
    this.done = namespace.isNone();
  }

  /** Queues the creation if it has not succeeded yet and is not under way. */
  void ensure() {
    if (done) {
      return;
    }
    synchronized (this) {
      if (done || inFlight) {
        return;
      }
      inFlight = true;
      Request create = Request.newBuilder().setCreate(CreateRequest.newBuilder()
          .setPath(namespace.root()).setMode(CreateMode.PERSISTENT).setParentMode(CreateMode.PERSISTENT)).build();
      session.submit(create, response -> { }, Delivery.DIRECT).whenComplete((response, failure) -> {
        synchronized (this) {
          inFlight = false;
          if (failure == null) {
            done = true;
            if (response.hasError() && response.getError().getCode() != ErrorCode.NODE_EXISTS) {
              log.warn("Could not create the namespace node {}: {}", namespace.root(), response.getError());
            }
          } else if (RetryDecision.codeOf(failure) == Code.CONNECTION_LOSS) {
            log.debug("Creating the namespace node {} failed; trying again before the next operation: {}",
                namespace.root(), failure.toString());
          }
        }
      });
    }
  }
}
