package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_WITH_TTL;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.createOf;
import static dev.corral.server.tree.Requests.delete;
import static dev.corral.server.tree.Requests.exists;
import static dev.corral.server.tree.Requests.getChildren;
import static dev.corral.server.tree.Requests.getData;
import static dev.corral.server.tree.Requests.multi;
import static dev.corral.server.tree.Requests.opCheck;
import static dev.corral.server.tree.Requests.opCreate;
import static dev.corral.server.tree.Requests.opDelete;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.corral.client.PathRules;
import dev.corral.proto.v1.AddWatchMode;
import dev.corral.proto.v1.AddWatchRequest;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.PingRequest;
import dev.corral.proto.v1.RemoveWatchesRequest;
import dev.corral.proto.v1.GetAllChildrenNumberRequest;
import dev.corral.proto.v1.GetEphemeralsRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetWatchesRequest;
import dev.corral.proto.v1.SyncRequest;
import dev.corral.proto.v1.WatcherType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestValidatorTest {
  private final RequestValidator validator = new RequestValidator(10);

  private Error rejected(Request request, ErrorCode code) {
    Error error = validator.validate(request).orElseThrow(() -> new AssertionError("accepted: " + request));
    assertEquals(code, error.getCode(), error::toString);
    return error;
  }

  private void accepted(Request request) {
    assertEquals(Optional.empty(), validator.validate(request));
  }

  @Test
  void createsOfPathsOverTheLengthLimitAreRefusedAndOtherOperationsStillNameThem() {
    String longest = "/" + "\u00e9".repeat((PathRules.MAX_PATH_BYTES - 1) / 2) + "x";
    accepted(create(longest));
    String tooLong = longest + "x";

    for (Request request : List.of(create(tooLong), multi(opCreate("/ok", PERSISTENT), opCreate(tooLong, PERSISTENT)))) {
      Error error = rejected(request, ErrorCode.INVALID_PATH);
      assertTrue(error.getMessage().contains("longer than 4096 bytes"), error.getMessage());
    }
    // a node made before the limit can still be read, watched and deleted
    for (Request request : List.of(getData(tooLong), exists(tooLong), delete(tooLong, -1),
        multi(opDelete(tooLong, -1)), Request.newBuilder().setSetWatches(
            SetWatchesRequest.newBuilder().addPersistentRecursiveWatches(tooLong)).build())) {
      accepted(request);
    }
  }

  @Test
  void aSequentialCreateCountsItsCounterInThePathsLength() {
    String prefix = "/" + "x".repeat(PathRules.MAX_PATH_BYTES - 11);
    accepted(create(prefix, PERSISTENT_SEQUENTIAL));
    Error error = rejected(create(prefix + "x", PERSISTENT_SEQUENTIAL), ErrorCode.INVALID_PATH);
    assertTrue(error.getMessage().contains("10-digit counter"), error.getMessage());
  }

  @Test
  void unknownWatchModesAndTypesAreNamedByTheirNumber() {
    Error mode = rejected(Request.newBuilder()
        .setAddWatch(AddWatchRequest.newBuilder().setPath("/a").setModeValue(7)).build(), ErrorCode.INVALID_ARGUMENT);
    assertTrue(mode.getMessage().contains("unknown add_watch mode 7"), mode.getMessage());
    Error type = rejected(Request.newBuilder()
        .setRemoveWatches(RemoveWatchesRequest.newBuilder().setPath("/a").setTypeValue(42)).build(),
        ErrorCode.INVALID_ARGUMENT);
    assertTrue(type.getMessage().contains("unknown type 42"), type.getMessage());
  }

  @Test
  void validWritesPass() {
    accepted(create("/a"));
    accepted(create("/q/", PERSISTENT_SEQUENTIAL));
    accepted(create(createOf("/t", PERSISTENT_WITH_TTL).setTtlMs(1)));
    accepted(create(createOf("/a/b", EPHEMERAL).setParentMode(CONTAINER).setData(ByteString.copyFromUtf8("0123456789"))));
    accepted(delete("/a", -1));
    accepted(setData("/a", "x", 3));
    accepted(Request.newBuilder().setPing(PingRequest.getDefaultInstance()).build());
    accepted(Request.getDefaultInstance());
  }

  @Test
  void badPathsAreInvalidPathNamingRuleAndPath() {
    Error error = rejected(create("/a/"), ErrorCode.INVALID_PATH);
    assertEquals("/a/", error.getPath());
    assertTrue(error.getMessage().contains("/a/") && error.getMessage().contains("end with '/'"), error.getMessage());
    rejected(delete("a", -1), ErrorCode.INVALID_PATH);
    rejected(setData("/a/../b", "x", -1), ErrorCode.INVALID_PATH);
  }

  @Test
  void readAndWatchPathsAreChecked() {
    rejected(exists("/a//b"), ErrorCode.INVALID_PATH);
    rejected(getData(""), ErrorCode.INVALID_PATH);
    rejected(getChildren("/x/"), ErrorCode.INVALID_PATH);
    rejected(Request.newBuilder().setSync(SyncRequest.newBuilder().setPath("/.")).build(), ErrorCode.INVALID_PATH);
    rejected(Request.newBuilder().setAddWatch(AddWatchRequest.newBuilder().setPath("x")).build(), ErrorCode.INVALID_PATH);
    rejected(Request.newBuilder().setRemoveWatches(RemoveWatchesRequest.newBuilder().setPath("x")
        .setType(WatcherType.ANY)).build(), ErrorCode.INVALID_PATH);
    rejected(Request.newBuilder().setSetWatches(SetWatchesRequest.newBuilder()
        .addDataWatches("/ok").addPersistentRecursiveWatches("/bad/")).build(), ErrorCode.INVALID_PATH);
  }

  @Test
  void getEphemeralsTakesAnEmptyPrefixOrAValidPathAndGetAllChildrenNumberAValidPath() {
    accepted(Request.newBuilder().setGetEphemerals(GetEphemeralsRequest.getDefaultInstance()).build());
    accepted(Request.newBuilder().setGetEphemerals(GetEphemeralsRequest.newBuilder().setPrefixPath("/a")).build());
    rejected(Request.newBuilder().setGetEphemerals(GetEphemeralsRequest.newBuilder().setPrefixPath("a")).build(),
        ErrorCode.INVALID_PATH);
    accepted(Request.newBuilder().setGetAllChildrenNumber(GetAllChildrenNumberRequest.newBuilder().setPath("/"))
        .build());
    rejected(Request.newBuilder().setGetAllChildrenNumber(GetAllChildrenNumberRequest.getDefaultInstance()).build(),
        ErrorCode.INVALID_PATH);
  }

  @Test
  void aFirstWatchNeedsANodeNamedWithASequenceCounter() {
    accepted(Request.newBuilder().setAddWatch(AddWatchRequest.newBuilder().setPath("/q/n-0000000007")
        .setMode(AddWatchMode.FIRST_WATCH_MODE)).build());
    Error error = rejected(Request.newBuilder().setAddWatch(AddWatchRequest.newBuilder().setPath("/q/plain")
        .setMode(AddWatchMode.FIRST_WATCH_MODE)).build(), ErrorCode.INVALID_ARGUMENT);
    assertTrue(error.getMessage().contains("sequence counter"), error.getMessage());
    rejected(Request.newBuilder().setSetWatches(SetWatchesRequest.newBuilder().addFirstWatches("/")).build(),
        ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void dataOverTheLimitIsDataTooLargeNamingSizeAndLimit() {
    Request big = create(createOf("/a", PERSISTENT).setData(ByteString.copyFrom(new byte[11])));
    Error error = rejected(big, ErrorCode.DATA_TOO_LARGE);
    assertTrue(error.getMessage().contains("11") && error.getMessage().contains("10"), error.getMessage());
    rejected(setData("/a", "01234567890", -1), ErrorCode.DATA_TOO_LARGE);
  }

  @Test
  void ttlIsRequiredForTtlModesAndForbiddenForOthers() {
    rejected(create(createOf("/t", PERSISTENT_WITH_TTL)), ErrorCode.INVALID_ARGUMENT);
    rejected(create(createOf("/t", PERSISTENT_SEQUENTIAL_WITH_TTL).setTtlMs(-5)), ErrorCode.INVALID_ARGUMENT);
    Error error = rejected(create(createOf("/t", EPHEMERAL).setTtlMs(5)), ErrorCode.INVALID_ARGUMENT);
    assertTrue(error.getMessage().contains("ttl_ms"), error.getMessage());
  }

  @Test
  void aTtlAboveZooKeepersLimitIsRefusedAsThere() {
    accepted(create(createOf("/t", PERSISTENT_WITH_TTL).setTtlMs(RequestValidator.MAX_TTL_MS)));
    Error error = rejected(create(createOf("/t", PERSISTENT_WITH_TTL).setTtlMs(RequestValidator.MAX_TTL_MS + 1)),
        ErrorCode.INVALID_ARGUMENT);
    assertTrue(error.getMessage().contains("at most 1099511627775"), error.getMessage());
    rejected(multi(opCreate("/t", PERSISTENT_WITH_TTL).toBuilder()
        .setCreate(createOf("/t", PERSISTENT_WITH_TTL).setTtlMs(Long.MAX_VALUE)).build()), ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void versionsBelowMinusOneAreInvalidArgument() {
    rejected(delete("/a", -2), ErrorCode.INVALID_ARGUMENT);
    rejected(setData("/a", "x", -7), ErrorCode.INVALID_ARGUMENT);
    rejected(multi(opCheck("/a", -2)), ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void parentModeMustBePersistentOrContainer() {
    rejected(create(createOf("/a/b", PERSISTENT).setParentMode(EPHEMERAL)), ErrorCode.INVALID_ARGUMENT);
    rejected(create(createOf("/a/b", PERSISTENT).setParentMode(PERSISTENT_WITH_TTL)), ErrorCode.INVALID_ARGUMENT);
    rejected(create(createOf("/a/b", PERSISTENT).setParentModeValue(42)), ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void unknownEnumValuesAreInvalidArgument() {
    rejected(create(createOf("/a", PERSISTENT).setModeValue(42)), ErrorCode.INVALID_ARGUMENT);
    rejected(Request.newBuilder().setAddWatch(AddWatchRequest.newBuilder().setPath("/a").setModeValue(9)).build(),
        ErrorCode.INVALID_ARGUMENT);
    rejected(Request.newBuilder().setRemoveWatches(RemoveWatchesRequest.newBuilder().setPath("/a")
        .setTypeValue(9)).build(), ErrorCode.INVALID_ARGUMENT);
    rejected(Request.newBuilder().setRemoveWatches(RemoveWatchesRequest.newBuilder().setPath("/a")).build(),
        ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void deleteOfTheRootIsInvalidArgument() {
    rejected(delete("/", -1), ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void multiValidatesEveryOpAndNamesItsIndex() {
    accepted(multi());
    accepted(multi(opCreate("/a", PERSISTENT), opCheck("/a", -1), opDelete("/a", 0)));
    Error error = rejected(multi(opCreate("/a", PERSISTENT), opDelete("/b/", -1)), ErrorCode.INVALID_PATH);
    assertTrue(error.getMessage().startsWith("op 1 (delete /b/): "), error.getMessage());
    assertEquals("/b/", error.getPath());
  }

  @Test
  void refusedMultiListsEveryOperationsResultLikeAMultiFailedInTheLog() {
    Response refused = validator.refusal(multi(opCreate("/a", PERSISTENT), opDelete("/b/", -1), opCheck("/a", 0)))
        .orElseThrow();
    assertEquals(ErrorCode.INVALID_PATH, refused.getError().getCode());
    assertTrue(refused.getError().getMessage().startsWith("op 1 (delete /b/): "), refused.getError().getMessage());
    assertEquals(List.of(ErrorCode.ROLLED_BACK, ErrorCode.INVALID_PATH, ErrorCode.ROLLED_BACK),
        refused.getMulti().getResultsList().stream().map(r -> r.getError().getCode()).toList());
    assertEquals(Optional.empty(), validator.refusal(multi(opCreate("/a", PERSISTENT))));
    assertEquals(ErrorCode.INVALID_PATH, validator.refusal(create("a")).orElseThrow().getError().getCode());
  }

  @Test
  void multiRejectsWatchesAndOpsWithoutAnOp() {
    MultiOp watchedRead = MultiOp.newBuilder()
        .setGetChildren(GetChildrenRequest.newBuilder().setPath("/a").setWatch(true)).build();
    Error watch = rejected(multi(watchedRead), ErrorCode.INVALID_ARGUMENT);
    assertTrue(watch.getMessage().contains("watch"), watch.getMessage());
    rejected(multi(MultiOp.newBuilder().setExists(ExistsRequest.newBuilder().setPath("/a").setWatch(true)).build()),
        ErrorCode.INVALID_ARGUMENT);
    rejected(multi(opCreate("/a", PERSISTENT), MultiOp.getDefaultInstance()), ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void multiChecksDataSizeOfItsOps() {
    MultiOp big = MultiOp.newBuilder().setCreate(createOf("/a", PERSISTENT)
        .setData(ByteString.copyFrom(new byte[11]))).build();
    rejected(multi(big), ErrorCode.DATA_TOO_LARGE);
  }

  @Test
  void negativeLimitIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new RequestValidator(-1));
  }
}
