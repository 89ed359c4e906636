package dev.corral.server.tree;

import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.Stat;

/**
 * One znode's data and metadata. Immutable: a change makes a new record, so a
 * snapshot can share records with the live tree. {@code data} is never mutated.
 */
record Node(
    byte[] data,
    long czxid,
    long mzxid,
    long pzxid,
    long ctime,
    long mtime,
    int version,
    int cversion,
    long ephemeralOwner,
    CreateMode mode,
    long ttlMs,
    int numChildren) {

  static final byte[] NO_DATA = new byte[0];

  static final Node ROOT = new Node(NO_DATA, 0, 0, 0, 0, 0, 0, 0, 0, CreateMode.PERSISTENT, 0, 0);

  /** A new, childless node created by the change {@code zxid} at {@code timeMs}. */
  static Node created(byte[] data, long zxid, long timeMs, long ephemeralOwner, CreateMode mode, long ttlMs) {
    return new Node(data, zxid, zxid, zxid, timeMs, timeMs, 0, 0, ephemeralOwner, mode, ttlMs, 0);
  }

  Node withData(byte[] newData, long zxid, long timeMs) {
    return new Node(newData, czxid, zxid, pzxid, ctime, timeMs, version + 1, cversion,
        ephemeralOwner, mode, ttlMs, numChildren);
  }

  Node withChildAdded(long zxid) {
    return withChildren(zxid, numChildren + 1, cversion + 1);
  }

  /** One child fewer; {@code countInCversion} is false under ZooKeeper's rule (see {@link TreeRules}). */
  Node withChildRemoved(long zxid, boolean countInCversion) {
    return withChildren(zxid, numChildren - 1, countInCversion ? cversion + 1 : cversion);
  }

  Node withNumChildren(int count) {
    return new Node(data, czxid, mzxid, pzxid, ctime, mtime, version, cversion,
        ephemeralOwner, mode, ttlMs, count);
  }

  private Node withChildren(long zxid, int count, int newCversion) {
    return new Node(data, czxid, mzxid, zxid, ctime, mtime, version, newCversion,
        ephemeralOwner, mode, ttlMs, count);
  }

  /** True if a TTL node is childless and unchanged for longer than its TTL at {@code nowMs}. */
  boolean ttlExpired(long nowMs) {
    return Modes.isTtl(mode) && numChildren == 0 && nowMs - mtime > ttlMs;
  }

  Stat stat() {
    return Stat.newBuilder()
        .setCzxid(czxid)
        .setMzxid(mzxid)
        .setPzxid(pzxid)
        .setCtime(ctime)
        .setMtime(mtime)
        .setVersion(version)
        .setCversion(cversion)
        .setEphemeralOwner(ephemeralOwner)
        .setDataLength(data.length)
        .setNumChildren(numChildren)
        .build();
  }
}
