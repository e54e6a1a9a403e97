"""Python ranks on the Stoker page, run by test_stoker_page.py as a process of its own (a session
with the Spark UI on): two ranks train with stoker.torch.run, each holding after a few batches
until the page shows them so, when the page is read live, in Chromium where it is installed; then
the page once the stage ended. Prints one JSON line: the rows of each rank, live and final."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROWS = 1024
BATCH = 32
HELD = 3
PER_RANK = ROWS // 2 // BATCH


def train(loader, gate):
    import time as clock

    steps = 0
    for batch in loader:
        steps += 1
        clock.sleep(0.01)  # a step
        while steps == HELD and not os.path.exists(gate):
            clock.sleep(0.05)
    return steps


def rows_of(html):
    """Each rank's row of the page, its cells between bars, as the Java tests read them."""
    found = {}
    for rank in (0, 1):
        start = html.find(f'<tr id="stoker-rank-{rank}"')
        if start >= 0:
            found[rank] = re.sub(r"<[^>]+>", "|", html[start:html.find("</tr>", start)])
    return found


def page(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


def chromium_dom(url):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    profile = tempfile.mkdtemp(prefix="stoker-chromium")
    try:
        done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-dev-shm-usage", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync", "--no-first-run",
                               f"--user-data-dir={profile}", "--dump-dom", url],
                              capture_output=True, text=True, timeout=90)
        return done.stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--jars", required=True)
    args = parser.parse_args()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import stoker.torch as st

    spark = (SparkSession.builder.master("local[2]").appName("stoker-python-page")
             .config("spark.jars", args.jars)
             .config("spark.ui.enabled", "true").config("spark.ui.port", "0")
             .config("spark.executor.heartbeatInterval", "1s")
             .config("spark.driver.memory", "1g")
             .config("spark.local.dir", os.path.join(args.dir, "spark-local"))
             .getOrCreate())
    try:
        path = os.path.join(args.dir, "train")
        x = F.array(*[(F.col("id") % 7).cast("float") for _ in range(4)])
        spark.range(0, ROWS, 1, 2).select(x.alias("x"), (F.col("id") % 2).alias("label")) \
            .write.parquet(path)
        gate = os.path.join(args.dir, "go")
        read = st.read(spark, path, batchSize=BATCH, worldSize=2, shuffle=True, seed=3,
                       dropLast=True)
        result = {}
        runner = threading.Thread(target=lambda: result.update(
            steps=st.run(read, train, gate, num_processes=2)))
        runner.start()
        url = spark.sparkContext.uiWebUrl + "/stoker/"
        live, dom = {}, None
        deadline = time.time() + 180
        try:
            while time.time() < deadline and runner.is_alive():
                live = rows_of(page(url))
                if len(live) == 2 and all(f"|{HELD} ({PER_RANK} per epoch)|" in r
                                          for r in live.values()):
                    dom = chromium_dom(url)
                    break
                time.sleep(0.5)
        finally:
            open(gate, "w").close()
        runner.join(240)
        final = {}
        deadline = time.time() + 60
        while time.time() < deadline:
            html = page(url)
            if "finished in" in html:
                final = rows_of(html)
                break
            time.sleep(0.5)
        print("stoker-page job: " + json.dumps({
            "steps": result.get("steps"), "live": live, "final": final,
            "browser": None if dom is None else rows_of(dom),
            "chart": dom is not None and '<svg class="stoker-chart"' in dom}), flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
