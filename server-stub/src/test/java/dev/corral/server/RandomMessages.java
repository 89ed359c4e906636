package dev.corral.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.Request;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Random client messages from the protocol's own descriptors, for fuzzing:
 * every field of every message may be set, to edge values, nonsense (unknown
 * enum numbers, invalid paths, oversized data) or, most of the time, values
 * that make a valid request in a small tree, so that fuzzed requests reach
 * the code past validation too. Repeatable for a seed.
 */
final class RandomMessages {
  private static final int MAX_DEPTH = 4;
  private static final List<String> VALID_PATHS =
      List.of("/f", "/f/a", "/f/a/b", "/f/b", "/f/s-", "/g", "/g/x-", "/f/a/b/c");
  private static final List<String> ODD_PATHS =
      List.of("/", "", "a", "//", "/f/", "/.", "/..", "/f/./a", "/nul\u0000", "/\uD800", "/\u00e9t\u00e9", "/zookeeper");
  private static final int[] INTS = {0, -1, 1, 2, 3, 4, 5, 100, 1000, 60_000, Integer.MAX_VALUE, Integer.MIN_VALUE};
  private static final long[] LONGS = {0, -1, 1, 2, 1000, 60_000, Long.MAX_VALUE, Long.MIN_VALUE};

  private final Random random;

  RandomMessages(long seed) {
    this.random = new Random(seed);
  }

  Random random() {
    return random;
  }

  /** A message that may be anything the wire can carry: a Connect, a request, both or neither. */
  ClientMessage anyMessage() {
    return (ClientMessage) parsedAs(ClientMessage.getDefaultInstance(), fill(ClientMessage.getDescriptor(), 0));
  }

  /** A request message with a random operation. */
  ClientMessage requestMessage() {
    Request request = (Request) parsedAs(Request.getDefaultInstance(), fill(Request.getDescriptor(), 0));
    if (request.hasCreate() && random.nextInt(10) < 7) { // often a create that can succeed
      // a new builder: toBuilder() of a message holding an unknown parent_mode throws (protobuf-java 3/4)
      CreateRequest.Builder create = CreateRequest.newBuilder().setPath(request.getCreate().getPath())
          .setMode(CreateMode.forNumber(random.nextInt(5))).setData(ByteString.copyFromUtf8("d"));
      if (random.nextBoolean()) {
        create.setParentMode(CreateMode.PERSISTENT);
      } else {
        create.clearParentMode();
      }
      request = Request.newBuilder().setXid(request.getXid()).setCreate(create).build();
    }
    return ClientMessage.newBuilder().setRequest(request).build();
  }

  /** Built dynamically (so unknown enum numbers go out as they are), then read as the generated type. */
  private static Message parsedAs(Message type, DynamicMessage dynamic) {
    try {
      return type.getParserForType().parseFrom(dynamic.toByteString());
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("a message built from its own descriptor did not parse", e);
    }
  }

  private DynamicMessage fill(Descriptor type, int depth) {
    DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
    Set<FieldDescriptor> chosen = new HashSet<>(); // one member of each oneof, mostly
    for (OneofDescriptor oneof : type.getOneofs()) {
      if (random.nextInt(8) != 0) {
        chosen.add(oneof.getField(random.nextInt(oneof.getFieldCount())));
      }
    }
    for (FieldDescriptor field : type.getFields()) {
      boolean wanted = field.getRealContainingOneof() != null ? chosen.contains(field) : random.nextInt(3) != 0;
      if (!wanted || (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth >= MAX_DEPTH)) {
        continue;
      }
      if (field.isRepeated()) {
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
          builder.addRepeatedField(field, value(field, depth));
        }
      } else {
        builder.setField(field, value(field, depth));
      }
    }
    return builder.build();
  }

  private Object value(FieldDescriptor field, int depth) {
    return switch (field.getJavaType()) {
      case MESSAGE -> fill(field.getMessageType(), depth + 1);
      case INT -> random.nextInt(4) == 0 ? random.nextInt() : INTS[random.nextInt(INTS.length)];
      case LONG -> random.nextInt(4) == 0 ? random.nextLong() : LONGS[random.nextInt(LONGS.length)];
      case BOOLEAN -> random.nextBoolean();
      case FLOAT -> random.nextFloat();
      case DOUBLE -> random.nextDouble();
      case STRING -> path();
      case BYTE_STRING -> bytes();
      case ENUM -> field.getEnumType().findValueByNumberCreatingIfUnknown(random.nextInt(10) == 0
          ? random.nextInt(100) - 10 : random.nextInt(field.getEnumType().getValues().size()));
    };
  }

  private String path() {
    int kind = random.nextInt(10);
    if (kind == 0) {
      StringBuilder odd = new StringBuilder("/");
      int length = random.nextInt(4) == 0 ? 100_000 : 1 + random.nextInt(5);
      for (int i = 0; i < length; i++) {
        odd.append((char) random.nextInt(0x3000));
      }
      return odd.toString();
    }
    if (kind == 1) {
      return ODD_PATHS.get(random.nextInt(ODD_PATHS.size()));
    }
    return VALID_PATHS.get(random.nextInt(VALID_PATHS.size()));
  }

  private ByteString bytes() {
    byte[] data = new byte[random.nextInt(20) == 0 ? 70_000 + random.nextInt(100_000) : random.nextInt(600)];
    random.nextBytes(data);
    return ByteString.copyFrom(data);
  }
}
