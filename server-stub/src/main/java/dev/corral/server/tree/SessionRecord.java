package dev.corral.server.tree;

import com.google.protobuf.ByteString;

/**
 * A session as the tree knows it: created, re-attached and closed through the
 * log. {@code attachment} is the token of its latest open or attach: of the
 * changes a client sends, only those sent through that stream are applied.
 */
public record SessionRecord(long sessionId, int timeoutMs, ByteString password, long attachment) {
  SessionRecord attachedTo(long token) {
    return new SessionRecord(sessionId, timeoutMs, password, token);
  }
}
