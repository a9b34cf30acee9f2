#!/usr/bin/env bash
# Pilots of sja.fig1's deepest model (bilinear L = 6, 12 layers, d = 4) on a lent GPU (bench/gpu/RESULTS.md, third session):
# the deciding budget at 300 steps with one setting changed each (no clipping; init N(0, 0.002^2); lr 3e-4).
# Run through the device tool with carry [bench/gpu/debs, bench/gpu/prebuilt] (check.sh --download and --prebuild
# here first); B=portable S=2 EXTRA="--set batch=8 --samples 100" OUT=/tmp/o is the rehearsal here.
set -u; B=${B:-cuda}; S=${S:-300}
mkdir -p /tmp/p; for f in bench/gpu/debs/*.deb; do [[ $f == *-dev_* ]] || dpkg -x $f /tmp/p; done
mkdir -p /tmp/p/icl; ln -sf /tmp/p/usr/lib/x86_64-linux-gnu/lib{fmt,zip}.so.* /tmp/p/icl/
for lib in libbz2.so.1.0 libssl.so.3 libcrypto.so.3 libz.so.1; do ldconfig -p | grep -q "$lib " || ln -sf /tmp/p/{usr/,}lib/x86_64-linux-gnu/$lib* /tmp/p/icl/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/p/icl; nvidia-smi -L
for cfg in "clip0:--set clip=0" "init002:--set init_sd=0.002" "lr3e-4:--set lr=3e-4"; do
  name=${cfg%%:*}; extra=${cfg#*:}; SECONDS=0
  timeout -k 3 48 bench/gpu/prebuilt/icl-verify run sja.fig1 --budget deciding --backend $B --set d=4 --set L=6 --set steps=$S $extra ${EXTRA:-} --out /tmp/r-$name 2>&1 | tail -c 600
  echo "[$name: rc ${PIPESTATUS[0]}, $SECONDS s]"; cp /tmp/r-$name/sja.fig1.json $OUT/$name.json
done
