package dev.corral.server.tree;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/** Deterministic 64-bit hashes of nodes and sessions, summed into a tree digest. */
final class Digests {
  private static final HashFunction HASH = Hashing.murmur3_128(0x436f7272);

  private Digests() {}

  static long node(String path, Node node) {
    return HASH.newHasher()
        .putInt(path.length())
        .putString(path, StandardCharsets.UTF_8)
        .putInt(node.data().length)
        .putBytes(node.data())
        .putLong(node.czxid())
        .putLong(node.mzxid())
        .putLong(node.pzxid())
        .putLong(node.ctime())
        .putLong(node.mtime())
        .putInt(node.version())
        .putInt(node.childCounter())
        .putLong(node.ephemeralOwner())
        .putInt(node.mode().getNumber())
        .putLong(node.ttlMs())
        .putInt(node.numChildren())
        .hash()
        .asLong();
  }

  static long session(SessionRecord session) {
    return HASH.newHasher()
        .putLong(session.sessionId())
        .putInt(session.timeoutMs())
        .putBytes(session.password().toByteArray())
        .putLong(session.attachment())
        .hash()
        .asLong();
  }
}
