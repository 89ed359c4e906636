package dev.corral.server.replication;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A follower's client to the leader, and a future failed when the client is
 * retired, so that what the client still holds fails then (outcome unknown)
 * rather than when its retries against a dead leader run out (measured: 3.3 s
 * after a kill -9 of the leader).
 */
record Forwarder(RaftClient client, CompletableFuture<RaftClientReply> retired) {
  private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);

  Forwarder(RaftClient client) {
    this(client, new CompletableFuture<>());
  }

  /**
   * Closes the client, then fails what it held. In that order: its callers
   * may move on once told (a stream ends, its client re-attaches), and a retry
   * sent after that could put a stale entry into the log. Blocks while the
   * client closes: up to seconds when a member does not answer.
   */
  void retire(String why) {
    try {
      client.close();
    } catch (IOException e) {
      LOG.warn("closing a forwarding client failed", e);
    }
    retired.completeExceptionally(new IOException("the forwarding client was retired: " + why));
  }

  /** Sends an entry; fails when Ratis does or this forwarder is retired, whichever comes first. */
  CompletableFuture<RaftClientReply> send(Message message) {
    return client.async().send(message).applyToEither(retired, reply -> reply);
  }
}
