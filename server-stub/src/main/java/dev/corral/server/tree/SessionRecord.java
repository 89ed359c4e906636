package dev.corral.server.tree;

import com.google.protobuf.ByteString;

/** A session as the tree knows it: created and closed through the log. */
public record SessionRecord(long sessionId, int timeoutMs, ByteString password) {}
