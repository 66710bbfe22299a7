// C++ iostreams from threads, selected by argv[1]:
//   cout    four threads print numbers and strings to std::cout (endl) and
//           std::cerr, and write and read files of their own     -> clean
//   racy    the same, and each thread also adds to a shared counter
//           without a lock                                          -> race
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

static long counter;

int main(int argc, char **argv)
{
   std::string mode = argc > 1 ? argv[1] : "cout";
   bool racy = mode == "racy";
   std::vector<std::thread> ts;
   for (int i = 0; i < 4; i++)
      ts.emplace_back([i, racy] {
         std::string name = "/tmp/ag_race_iostream_" + std::to_string(getpid()) + "_" + std::to_string(i);
         for (int r = 0; r < 3; r++) {
            std::ofstream(name) << "line " << i << ' ' << r << '\n';
            std::string s;
            std::getline(std::ifstream(name), s);
            std::cout << s << " " << 1.5 * r << std::endl;
            std::cerr << "thread " << i << "\n";
            if (racy) counter++;
         }
         unlink(name.c_str());
      });
   for (auto &t : ts) t.join();
   std::cout << "done " << counter << std::endl;
   return 0;
}
