module provbench.local/tools/pause

go 1.26.0
