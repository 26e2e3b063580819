#!/usr/bin/env bash
# Everything the README's benchmark section is generated from (resumable; about 2-3 hours on 2 cores).
# SEEDS: sequential suite (the issue asks for 10); PSEEDS: Ax comparison, parallel modes and ablation.
set -euo pipefail
cd "$(dirname "$0")"
SEEDS=${SEEDS:-10}
PSEEDS=${PSEEDS:-5}
R=results
python run.py suite --seeds "$SEEDS" --trials 100 --samplers egp-ts,egp-ei,egp-ts-nowarp,bore++,gp,tpe,cmaes,random --out $R/suite_seq.jsonl
python run.py ax --seeds "$PSEEDS" --trials 40 --functions branin,hartmann6 --out $R/ax.jsonl
python run.py overhead --out $R/overhead.jsonl
python run.py suite --seeds "$PSEEDS" --trials 100 --mode async --workers 4 --samplers egp-ts,egp-ts-nofant,gp,tpe --out $R/suite_async4.jsonl
python run.py suite --seeds "$PSEEDS" --trials 100 --mode async --workers 8 --samplers egp-ts,egp-ts-nofant,gp,tpe --out $R/suite_async8.jsonl
python run.py ablation --seeds "$PSEEDS" --trials 100 --functions ackley5,zakharov2,dropwave,eggholder --out $R/ablation.jsonl
python run.py suite --seeds "$PSEEDS" --trials 100 --mode threads --workers 4 --procs 3 --samplers egp-auto,gp,tpe --out $R/suite_threads4.jsonl
python run.py suite --seeds "$PSEEDS" --trials 100 --mode threads --workers 8 --procs 3 --samplers egp-auto,gp,tpe --out $R/suite_threads8.jsonl
python run.py suite --mode batch --workers 5 --samplers bore++,bore++-beta0,bore++-sharp1,bore++-beta0-sharp1,bore --functions rosenbrock2,rosenbrock4,rosenbrock6,rosenbrock8 --seeds "$PSEEDS" --trials 60 --out $R/bore_rosenbrock.jsonl
python run.py suite --seeds "$PSEEDS" --trials 100 --mode async --workers 4 --samplers bore++ --out $R/suite_async4.jsonl
python run.py suite --seeds "$PSEEDS" --trials 100 --mode async --workers 8 --samplers bore++ --out $R/suite_async8.jsonl
python run.py suite --seeds 3 --trials 100 --mode async --workers 8 --samplers bore++-sharp1 --functions hartmann6,ackley5,branin,zakharov2 --out $R/bore_sharpness_async8.jsonl
python report.py
