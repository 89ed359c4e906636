package dev.corral.server.tree;

import dev.corral.proto.v1.OpResult;
import dev.corral.proto.v1.Response;

/** Turns the result of one operation into a {@link Response}. */
final class Responses {
  private Responses() {}

  static Response single(long zxid, OpResult result) {
    Response.Builder response = Response.newBuilder().setZxid(zxid);
    switch (result.getResultCase()) {
      case ERROR -> response.setError(result.getError());
      case CREATE -> response.setCreate(result.getCreate());
      case DELETE -> response.setDelete(result.getDelete());
      case SET_DATA -> response.setSetData(result.getSetData());
      case GET_DATA -> response.setGetData(result.getGetData());
      case GET_CHILDREN -> response.setGetChildren(result.getGetChildren());
      case EXISTS -> response.setExists(result.getExists());
      case CHECK, RESULT_NOT_SET -> throw new IllegalArgumentException(
          "no response case for " + result.getResultCase());
    }
    return response.build();
  }
}
