# A stand-in for an inference server's processes, for discovery tests with real processes.
# The test copies this file under an engine's program name (vllm, llama-server,
# text-generation-launcher, text-generation-router, text-generation-server, trtllm-serve,
# tritonserver, lmdeploy, text-embeddings-router, or the modules sglang/launch_server.py,
# vllm/entrypoints/openai/api_server.py and dynamo/frontend/__main__.py) and runs it with that
# engine's flags. The process that owns the port serves a small static exposition in the engine's
# format on the engine's metrics path; helper processes only sleep. Every child dies with its
# parent (PR_SET_PDEATHSIG) and nothing lives longer than LIFETIME seconds.
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

LIFETIME = 120
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
libc = ctypes.CDLL(None, use_errno=True)

METRICS = {
    "vllm": '# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 3.0\n',
    "sglang": '# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model_name="m"} 4.0\n',
    "tgi": "# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 5\n",
    "llamacpp": "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 6\n",
    "trtllm": '# TYPE trtllm_num_active_requests gauge\n'
              'trtllm_num_active_requests{engine_type="trtllm",model_name="m"} 7.0\n',
    "triton": '# TYPE nv_trt_llm_request_metrics gauge\n'
              'nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="active",version="1"} 2\n',
    "dynamo": '# TYPE dynamo_frontend_requests_total counter\n'
              'dynamo_frontend_requests_total{endpoint="chat_completions",model="m",request_type="stream",status="success"} 9\n',
    "lmdeploy": '# TYPE lmdeploy:num_requests_running gauge\n'
                'lmdeploy:num_requests_running{engine="0",model_name="m"} 3.0\n',
    "tei": "# TYPE te_request_success counter\nte_request_success{method=\"single\"} 11\n",
}

# Where each engine serves its exposition; trtllm-serve's /metrics is JSON iteration stats.
PATHS = {"trtllm": "/prometheus/metrics"}


def die_with_parent():
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def set_name(name):
    libc.prctl(PR_SET_NAME, name.encode()[:15])


def flag(name, default=None):
    args = sys.argv
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return default


def titled(title, lifetime=LIFETIME, children=()):
    """A child process whose argv[0] is a setproctitle-style title, optionally with its own titled children."""
    code = (
        "import ctypes,signal,subprocess,sys,time\n"
        "libc=ctypes.CDLL(None)\n"
        "libc.prctl(15, %r)\n" % title.encode()[:15]
        + "kids=[subprocess.Popen([t,'-c','import time;time.sleep(%d)'],executable=%r,"
        "preexec_fn=lambda: libc.prctl(1, signal.SIGKILL)) for t in %r]\n" % (lifetime, sys.executable, list(children))
        + "time.sleep(%d)\n" % lifetime
    )
    return subprocess.Popen([title, "-c", code], executable=sys.executable, preexec_fn=die_with_parent)


def spawn(program, *args):
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    return subprocess.Popen([os.path.join(here, program), *args], preexec_fn=die_with_parent)


def serve(engine, port, host):
    body = METRICS[engine].encode()
    path = PATHS.get(engine, "/metrics")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if engine == "trtllm" and self.path == "/metrics":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"[]")
            elif self.path.startswith(path):
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_response(404)
                self.end_headers()

        def log_message(self, *a):
            pass

    # Tests bind loopback only; a wildcard in the flags would mean every interface.
    server = HTTPServer((host, int(port)), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    program = os.path.basename(sys.argv[0])
    if program == "launch_server.py":
        program = "sglang.launch_server"
    elif program == "api_server.py":
        program = "vllm"  # python -m vllm.entrypoints.openai.api_server
    elif program == "__main__.py":
        program = "dynamo.frontend"  # python -m dynamo.frontend
    children = []
    if program == "vllm":
        # V0 style: workers forked from the API server, with the same command line.
        for _ in range(int(flag("--fork-workers", "0"))):
            pid = os.fork()
            if pid == 0:
                die_with_parent()
                time.sleep(LIFETIME)
                os._exit(0)
        # V1 style: an engine core with TP workers under it.
        tp = int(flag("--v1-workers", "0"))
        if tp:
            children.append(titled("VLLM::EngineCore", children=["VLLM::Worker_TP%d" % i for i in range(tp)]))
        serve("vllm", flag("--port", "8000"), flag("--host", "127.0.0.1"))
    elif program == "sglang.launch_server":
        for i in range(int(flag("--tp", "1"))):
            children.append(titled("sglang::scheduler_TP%d" % i))
        serve("sglang", flag("--port", "30000"), flag("--host", "127.0.0.1"))
    elif program == "llama-server":
        serve("llamacpp", flag("--port", "8080"), flag("--host", "127.0.0.1"))
    elif program == "text-generation-launcher":
        port, prom = flag("--port", "3000"), flag("--prometheus-port", "9000")
        for rank in range(int(flag("--num-shard", "1"))):
            children.append(spawn("text-generation-server", "serve", flag("--model-id", "m"),
                                  "--uds-path", "/tmp/text-generation-server-%d" % rank, "--sharded"))
        children.append(spawn("text-generation-router", "--port", port, "--prometheus-port", prom,
                              "--hostname", flag("--hostname", "127.0.0.1"), "--master-shard-uds-path", "/tmp/text-generation-server-0"))
    elif program == "text-generation-router":
        serve("tgi", flag("--prometheus-port", "9000"), flag("--hostname", "127.0.0.1"))
    elif program == "text-generation-server":
        pass
    elif program == "trtllm-serve":
        serve("trtllm", flag("--port", "8000"), flag("--host", "127.0.0.1"))
    elif program == "tritonserver":
        serve("triton", flag("--metrics-port", "8002"), "127.0.0.1")
    elif program == "dynamo.frontend":
        serve("dynamo", flag("--http-port", os.environ.get("DYN_HTTP_PORT", "8000")), "127.0.0.1")
    elif program == "lmdeploy":
        # lmdeploy serve api_server <model>: the API server serves /metrics on --server-port.
        serve("lmdeploy", flag("--server-port", "23333"), flag("--server-name", "127.0.0.1"))
    elif program == "text-embeddings-router":
        serve("tei", flag("--prometheus-port", flag("--port", "3000")), "127.0.0.1")
    else:
        sys.exit("unknown program " + program)
    time.sleep(LIFETIME)


if __name__ == "__main__":
    if os.getppid() != 1:
        die_with_parent()
    main()
