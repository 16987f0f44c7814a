module joinkit/tools/oracle

go 1.19
