// prctl(PR_SET_CHILD_SUBREAPER) and targeted reaping for Node, as an N-API addon.
// No npm package provides prctl. A subreaper adopts every orphaned descendant (setsid double forks
// included) instead of letting it escape to PID 1, so the process can find and kill it.
// reap(pid) is waitpid(pid, WNOHANG) for one adopted orphan: libuv only waits for the children it
// spawned, so adopted ones must be reaped explicitly, and never with waitpid(-1) (that would steal
// libuv's own children's exit statuses).
#include <errno.h>
#include <node_api.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

static napi_value SetChildSubreaper(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  int rc = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  napi_get_boolean(env, rc == 0, &result);
  return result;
}

static napi_value IsChildSubreaper(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  int flag = 0;
  int rc = prctl(PR_GET_CHILD_SUBREAPER, &flag, 0, 0, 0);
  napi_get_boolean(env, rc == 0 && flag != 0, &result);
  return result;
}

static napi_value Reap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t pid = 0;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &pid) != napi_ok || pid <= 0) {
    napi_throw_type_error(env, NULL, "reap(pid) needs a positive pid");
    return NULL;
  }
  int status = 0;
  pid_t rc = waitpid((pid_t)pid, &status, WNOHANG);
  napi_value result;
  // 1 = reaped now, 0 = still running, -1 = not our child (or already reaped)
  napi_create_int32(env, rc == pid ? 1 : (rc == 0 ? 0 : -1), &result);
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"setChildSubreaper", NULL, SetChildSubreaper, NULL, NULL, NULL, napi_default, NULL},
      {"isChildSubreaper", NULL, IsChildSubreaper, NULL, NULL, NULL, napi_default, NULL},
      {"reap", NULL, Reap, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
