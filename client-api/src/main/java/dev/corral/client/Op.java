package dev.corral.client;

/**
 * One operation of a {@link CoordinationClient#multi multi}. Reads see the
 * writes before them in the same multi; all of it happens at one point of the
 * log, or none of it does.
 */
public sealed interface Op {
  /** The path the operation is on. */
  String path();

  /** A create; {@code null} data is no data, as for {@link CoordinationClient#create}. */
  static Create create(String path, byte[] data, CreateOptions options) {
    return new Create(path, copyOf(data), options);
  }

  static Create create(String path, byte[] data, CreateMode mode) {
    return create(path, data, CreateOptions.of(mode));
  }

  static Delete delete(String path, int version) {
    return new Delete(path, version);
  }

  /** A setData; {@code null} data is no data, as for {@link CoordinationClient#setData}. */
  static SetData setData(String path, byte[] data, int version) {
    return new SetData(path, copyOf(data), version);
  }

  private static byte[] copyOf(byte[] data) {
    return data == null ? new byte[0] : data.clone();
  }

  static Check check(String path, int version) {
    return new Check(path, version);
  }

  static GetChildren getChildren(String path) {
    return new GetChildren(path);
  }

  static GetData getData(String path) {
    return new GetData(path);
  }

  static Exists exists(String path) {
    return new Exists(path);
  }

  /** Creates a node (protection is not applied inside a multi). */
  record Create(String path, byte[] data, CreateOptions options) implements Op {}

  /** Deletes a node; version -1 matches any. */
  record Delete(String path, int version) implements Op {}

  /** Sets data; version -1 matches any. */
  record SetData(String path, byte[] data, int version) implements Op {}

  /** Fails the multi unless the node exists with this version (-1: any version). */
  record Check(String path, int version) implements Op {}

  /** Lists children. */
  record GetChildren(String path) implements Op {}

  /** Reads data. */
  record GetData(String path) implements Op {}

  /** Tells whether the node exists. */
  record Exists(String path) implements Op {}
}
