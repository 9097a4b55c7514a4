clear
for i in $(seq 1 15); do echo "line $i 日本"; done
printf '\033[3;10r\033[10;1H'
for i in $(seq 1 4); do printf 'region %d\n' $i; done
printf '\033[r\033[5;1H\033[2L\033[7;1H\033[1M\033[1;5H\033[3P\033[2;3H\033[4@INS\033[12;1H\033[2K\033[12;1Hcolour \033[41m bg \033[0m end'
printf '\033[16;1H\033M\033[18;1H\033D\033[20;1H'
