package dev.corral.server.tree;

import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.Stat;

/**
 * One znode's data and metadata. Immutable: a change makes a new record, so a
 * snapshot can share records with the live tree. {@code data} is never mutated.
 *
 * <p>{@code childCounter} is ZooKeeper's stored cversion: the children ever
 * created under the node (under {@link TreeRules#V0}, deletes too), from which
 * sequential children take their numbers. The cversion clients see counts every
 * create and delete of a child, as ZooKeeper's: see {@link #cversion()}.
 */
record Node(
    byte[] data,
    long czxid,
    long mzxid,
    long pzxid,
    long ctime,
    long mtime,
    int version,
    int childCounter,
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
    return new Node(newData, czxid, zxid, pzxid, ctime, timeMs, version + 1, childCounter,
        ephemeralOwner, mode, ttlMs, numChildren);
  }

  Node withChildAdded(long zxid) {
    return withChildren(zxid, numChildren + 1, childCounter + 1);
  }

  /** One child fewer; {@code counted} (see {@link TreeRules}) if the delete counts in {@code childCounter}. */
  Node withChildRemoved(long zxid, boolean counted) {
    return withChildren(zxid, numChildren - 1, counted ? childCounter + 1 : childCounter);
  }

  Node withNumChildren(int count) {
    return new Node(data, czxid, mzxid, pzxid, ctime, mtime, version, childCounter,
        ephemeralOwner, mode, ttlMs, count);
  }

  private Node withChildren(long zxid, int count, int counter) {
    return new Node(data, czxid, mzxid, zxid, ctime, mtime, version, counter,
        ephemeralOwner, mode, ttlMs, count);
  }

  /**
   * The changes to the children, as ZooKeeper computes it from its stored
   * count: every child created and not still present was deleted, so creates
   * plus deletes is {@code 2 * created - numChildren}. It grows by one with
   * each create or delete of a child, and wraps at 2^31 as ZooKeeper's (int
   * arithmetic, as there). For a node whose counter also counted deletes under
   * {@link TreeRules#V0}, the value is larger, and still grows by one per
   * change from there.
   */
  int cversion() {
    return 2 * childCounter - numChildren;
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
        .setCversion(cversion())
        .setEphemeralOwner(ephemeralOwner)
        .setDataLength(data.length)
        .setNumChildren(numChildren)
        .build();
  }
}
